#!/usr/bin/env bash
# Set up a Debian 12 machine, build xferlab from scratch, and either run the seed scenario
# (`demo`) or the whole test suite (`test`). README.md's two commands call this script.
#   tools/bootstrap.sh demo   # install, build, run scenarios/seed-h2d-threads.toml (sized to
#                             # this machine's memory: run --fit), print the report
#   tools/bootstrap.sh test   # install, build, run every test (ctest), then the reliability
#                             # checks: the suite under ASan+UBSan and under TSan
#                             # (tools/ci-sanitizers.sh), each fuzz target for a minute
#                             # (tools/ci-fuzz.sh)
#   tools/bootstrap.sh build  # install, build (test and build also build, once per machine,
#                             # the CPython 3.13 interpreters of launchers python-ft and
#                             # python-subinterp into .cache, and xferlab-ft / xferlab-py313)
# All install the bash completion after building (tools/install-completion.sh).
# Environment: BUILD_DIR (default build; the checks use ${BUILD_DIR}-asan, -tsan, -fuzz),
# JOBS (default: nproc), FUZZ_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in demo | test | build) ;; *)
    echo "usage: tools/bootstrap.sh demo|test|build" >&2
    exit 2
    ;;
esac

build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}

# clang-14, libclang-rt-14-dev (sanitizer and libFuzzer runtimes) and libomp-14-dev (clang's
# OpenMP) are for the sanitizer and fuzz builds; OpenMPI is for the mpi launcher;
# python3-matplotlib draws the figures (`xferlab plot`, output.plots); libsqlite3-dev is for
# results.sqlite; python3-venv makes the virtual environment test_cli_python_env embeds;
# python3-numpy: the timed-block tests copy NumPy arrays (matplotlib pulls it in too);
# python3-pytest runs the Python module's tests (tests/module); xz-utils reads the
# measured results the tests own (tests/fixtures/measured/*.xz).
packages=(cmake ninja-build g++ pkg-config python3-dev pybind11-dev libtomlplusplus-dev
    libcli11-dev catch2 nlohmann-json3-dev libfmt-dev libnuma-dev libssl-dev libsqlite3-dev
    python3-matplotlib python3-venv python3-numpy python3-pytest xz-utils
    clang-14 libclang-rt-14-dev libomp-14-dev libopenmpi-dev openmpi-bin)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Each step says what it is and, when it ends, how long it took.
step_start=$SECONDS
step() {
    local now=$SECONDS
    [ -z "${step_name:-}" ] || echo "== bootstrap: done: $step_name ($((now - step_start)) s)" >&2
    step_name=$1 step_start=$now
    [ -z "$step_name" ] || echo "== bootstrap: $step_name" >&2
}

# Launchers python-ft and python-subinterp run their workers in sibling executables built
# against CPython 3.13 (cmake/sibling_builds.cmake): the free-threaded interpreter, and where
# Debian's Python is older than 3.12 (Debian 12: 3.11) a second build of the same source with
# its GIL for sub-interpreters, built once per machine into .cache/cpython (265 s each on a
# 2-core machine; reused afterwards), and pybind11 3 from Debian's archive into .cache/pybind11.
# `test` needs them (their tests must run); `build` goes on without them, saying so, and their
# runs are then skipped with the reason; `demo` runs none of them.
sibling_args=()
if [ "$mode" != demo ]; then
    step "interpreters for python-ft and python-subinterp (.cache, built once per machine)"
    with_gil=()
    /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 12))' || with_gil=(--with-gil)
    if prefixes=$(tools/build-free-threaded-python.sh --jobs "$jobs" "${with_gil[@]}") &&
        pybind11_dir=$(tools/fetch-pybind11.sh); then
        free_threaded=$(sed -n 's/^free-threaded: //p' <<<"$prefixes")
        gil=$(sed -n 's/^gil: //p' <<<"$prefixes")
        sibling_args=("-DXFER_FREE_THREADED_PYTHON=$free_threaded/bin/python3.13t"
            "-DXFER_SIBLING_PYBIND11_DIR=$pybind11_dir" "-DXFER_SIBLING_JOBS=$jobs")
        [ -z "$gil" ] || sibling_args+=("-DXFER_SUBINTERPRETER_PYTHON=$gil/bin/python3.13")
    elif [ "$mode" = test ]; then
        echo "== bootstrap: the interpreters for python-ft and python-subinterp could not be built" >&2
        exit 1
    else
        echo "== bootstrap: building without xferlab-ft and xferlab-py313: runs of python-ft" \
            "and python-subinterp will be skipped with the reason" >&2
    fi
fi

# Debian's own Python (python3-dev) is embedded, whatever `python3` is first on PATH.
# -g1 (line tables and function names: backtraces with file:line, no local variables) instead
# of RelWithDebInfo's -g: a third less compile time (docs/reliability.md).
step "build $build_dir"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DPython_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3 \
    "${sibling_args[@]}" >&2
# The demo needs the program alone; the tests are most of the build's time.
targets=()
[ "$mode" != demo ] || targets=(--target xferlab)
cmake --build "$build_dir" -j "$jobs" "${targets[@]}" >&2
# Tab completion of commands, flags, --set keys and scenario files, from the program itself.
step "bash completion"
tools/install-completion.sh "$build_dir"

case "$mode" in
demo)
    # --fit: on a machine with less memory than the seed needs (about 17 GiB on the host
    # backend) the copies are made smaller, saying so in one line, instead of being refused.
    step "seed scenario (xferlab run --fit)"
    "$build_dir/xferlab" run --fit scenarios/seed-h2d-threads.toml
    step ""
    ;;
test)
    step "ctest in $build_dir"
    (cd "$build_dir" && ctest --output-on-failure -j "$jobs" --timeout 600)
    step "ASan+UBSan build and ctest"
    tools/ci-sanitizers.sh address,undefined
    step "TSan build and ctest"
    tools/ci-sanitizers.sh thread
    step "fuzz targets, ${FUZZ_SECONDS:-60} s each"
    tools/ci-fuzz.sh
    step ""
    echo "== bootstrap: every test step passed ($SECONDS s)" >&2
    ;;
esac
