#!/usr/bin/env bash
# One script for the GPU test host (docs/gpu-host.md): record the machine, configure and build
# against the Debian packages unpacked in .deps, run ctest, run the GPU tests verbosely, run
# `xferlab devices`, run the given scenario files, and print a short summary last. Every step
# logs to its own file under the output folder and the script carries on past failures.
#
#   tools/gpu-host.sh [options] [scenario.toml ...]
#
# Options:
#   --out DIR        output folder (default: $OUT when set, else ./gpu-host-out)
#   --build-dir DIR  build folder (default: build-gpu; kept between calls on a warm machine)
#   --steps LIST     comma-separated subset of: machine,configure,build,ctest,gpu,module,devices,
#                    bench,module-bench,pip,runs (default: all, in that order; pip:
#                    `pip install .` into a throw-away folder, then one copy with what it made
#                    and its module's symbols checked: the module-only build is the one place
#                    a missing include that the unity build hides shows)
#   --jobs N         parallel build and ctest jobs (default: nproc)
#   --targets LIST   build only these targets (space-separated, e.g. "test_gpu xferlab_core
#                    xferlab_core_testing"); default: everything
#   --set KEY=VALUE  passed to every `xferlab run` (repeatable), e.g. --set transfer.bytes=1GiB
#   --gpu-args ARGS  extra arguments for the GPU test binary, e.g. "[matrix]"
#   --bench NAME     run build-gpu/tests/NAME (a benchmark) as step "bench NAME" (repeatable;
#                    "NAME ARGS" passes arguments); implies the bench step
#   --step-timeout S seconds before a step is stopped (default 540)
#   --bench-args A   arguments for tests/bench/bench-module.py (step module-bench), e.g. "--trials 3"
#   --bench-passes N run the module benchmark N times (bench-module-passK.log and .json; default 1:
#                    bench-module.log and .json)
#   --bench-testing  the benchmark imports the module's test build (python-testing: its limit
#                    section then measures the engine's own helpers' fill rates)
#   --no-pack        leave the output as a folder tree instead of packing it
#
# By default everything is packed into DIR/gpu-host.tar.gz, with DIR/summary.txt and
# DIR/gpu-tests.log beside it: the device tool returns at most 8 files from $OUT. The pack is
# remade after every step, so that a call stopped at its time limit still returns what the steps
# before had made.
# Exit status: 0 when every step succeeded, 1 otherwise.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$PWD/gpu-host-out}
build_dir=build-gpu
steps=machine,configure,build,ctest,gpu,module,devices,bench,module-bench,pip,runs
bench_args=""
bench_passes=1
bench_module_dir=python
benches=()
jobs=$(nproc 2>/dev/null || echo 4)
sets=()
gpu_args=""
step_timeout=540
pack=1
scenarios=()
targets=""

while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --build-dir) build_dir=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --targets) targets=$2; shift 2 ;;
        --set) sets+=(--set "$2"); shift 2 ;;
        --gpu-args) gpu_args=$2; shift 2 ;;
        --bench) benches+=("$2"); shift 2 ;;
        --step-timeout) step_timeout=$2; shift 2 ;;
        --bench-args) bench_args=$2; shift 2 ;;
        --bench-passes) bench_passes=$2; shift 2 ;;
        --bench-testing) bench_module_dir="python-testing"; shift ;;
        --no-pack) pack=0; shift ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        -*) echo "gpu-host.sh: unknown option $1" >&2; exit 2 ;;
        *) scenarios+=("$(readlink -f "$1")"); shift ;;  # before the cd below
    esac
done

cd "$root" || exit 2
case "$build_dir" in /*) ;; *) build_dir=$root/$build_dir ;; esac
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$out
[ "$pack" = 1 ] && work=$out/gpu-host
mkdir -p "$work/runs"

deps=$root/.deps/usr
deps_lib=$deps/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH="$deps_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

summary=()  # one line per step
failed=0

wants() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# step NAME LOG COMMAND...: runs COMMAND with a time limit, output to LOG; records the outcome.
step() {
    local name=$1 log=$2; shift 2
    local t0=$SECONDS rc
    echo "== $name ($(date -u +%H:%M:%S)): $*" | tee -a "$work/steps.log"
    {
        echo "# $*"
        echo "# started $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } >"$log"
    if declare -F "$1" >/dev/null; then
        "$@" >>"$log" 2>&1  # a shell function: quick, and timeout cannot run it
    else
        timeout --kill-after=15 "$step_timeout" "$@" >>"$log" 2>&1
    fi
    rc=$?
    local dt=$((SECONDS - t0))
    [ $rc -eq 124 ] && echo "# stopped after ${step_timeout}s (--step-timeout)" >>"$log"
    summary+=("$(printf '%-28s rc=%-4s %5ss  %s' "$name" "$rc" "$dt" "${log#"$out"/}")")
    if [ $rc -ne 0 ]; then
        failed=1
        summary+=("$(tail -n 15 "$log" | sed 's/^/      | /')")
    fi
    checkpoint
    return "$rc"
}

# The pack as it stands, replaced whole (never half written): what a call stopped at its time
# limit returns.
checkpoint() {
    [ "$pack" = 1 ] || return 0
    printf '%s\n' "${summary[@]}" >"$work/steps-done.txt"
    tar -czf "$out/gpu-host.tar.gz.part" -C "$out" gpu-host &&
        mv "$out/gpu-host.tar.gz.part" "$out/gpu-host.tar.gz"
}

# The git tree id of the files as they are here (what `git write-tree` would give after `git add
# -A`; .gitignore keeps builds and .deps out), through a throw-away index, so the repository's
# own index is not touched.
# shellcheck disable=SC2317  # called through record_machine, through step()
files_tree_id() {
    local index
    index=$(mktemp)
    rm -f "$index"
    if GIT_INDEX_FILE=$index git -C "$root" add -A . 2>/dev/null; then
        GIT_INDEX_FILE=$index git -C "$root" write-tree
    else
        echo "no git"
    fi
    rm -f "$index"
}

# Commands whose output describes the machine; each is allowed to fail (not every host has all).
# shellcheck disable=SC2317  # called through step()
record_machine() {
    local m=$work/machine
    mkdir -p "$m"
    nvidia-smi -q >"$m/nvidia-smi-q.txt" 2>&1
    nvidia-smi topo -m >"$m/nvidia-smi-topo.txt" 2>&1
    lscpu >"$m/lscpu.txt" 2>&1
    {
        echo "## uname"; uname -a
        echo "## os"; head -4 /etc/os-release 2>/dev/null
        echo "## nvidia-smi"; nvidia-smi 2>&1
        echo "## nvcc"; /usr/local/cuda/bin/nvcc --version 2>&1 | tail -2
        echo "## compilers"; g++ --version | head -1; cmake --version | head -1
        echo "## ninja"; ninja --version 2>&1
        echo "## python"; command -v python3; python3 --version 2>&1
        echo "## pybind11"; python3 -m pybind11 --version 2>&1
        echo "## memory"; free -g
        echo "## numa"; numactl -H 2>&1 | head -20
        echo "## transparent huge pages"
        cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1
        echo "## ulimit"; ulimit -a
        echo "## CUDA environment"; env | grep -E '^(CUDA|NVIDIA|LD_LIBRARY_PATH)' | sort
        echo "## .deps"; find "$deps_lib" -maxdepth 1 -name "*.so*" 2>&1 | head -20
        echo "## tree"; (git -C "$root" describe --always --dirty 2>/dev/null || echo "no git")
        # A copied tree may come with a stale .git, so `describe` can name an older commit: the
        # files' own tree id is what ran (`git log --format='%h %T' | grep ID` finds its commit).
        echo "## tree of the files"; files_tree_id
    } >"$m/machine.txt" 2>&1
    echo "machine recorded in $m"
}

if wants machine; then
    step machine "$work/machine.log" record_machine
fi

if wants configure; then
    pybind_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null)
    python=$(command -v python3)
    step configure "$work/configure.log" \
        cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_PREFIX_PATH="$deps" ${pybind_dir:+-Dpybind11_DIR="$pybind_dir"} \
        -DPython_EXECUTABLE="$python" -DPYTHON_EXECUTABLE="$python"
fi

if wants build; then
    # -k 0: a target that fails does not stop the others (the module, the GPU tests)
    target_args=()
    for t in $targets; do target_args+=(--target "$t"); done
    step build "$work/build.log" cmake --build "$build_dir" -j "$jobs" "${target_args[@]}" -- -k 0
fi

if wants ctest; then
    # Every test but the GPU one, which the next step runs verbosely (the same binary: running it
    # twice would spend GPU time for nothing).
    step ctest "$work/ctest.log" \
        ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" -LE gpu --timeout 600
fi

if wants gpu; then
    # -d yes: each test case with its duration; WARN lines say what was skipped and why.
    # shellcheck disable=SC2086
    step gpu-tests "$work/gpu-tests.log" "$build_dir/tests/test_gpu" -d yes $gpu_args
fi

# The extension module built above, imported by the venv's python3 next to CuPy and PyTorch:
# the fake-device suite (tests/module as ctest runs it) on the module's test build
# (python-testing: the same module with the fake device bound in), then the GPU suite
# (tests/module/test_gpu_module.py) on the module as it is installed (-rs: every skip with its
# reason).
# shellcheck disable=SC2317  # called through step()
module_tests() {
    timeout --kill-after=15 300 env PYTHONPATH="$build_dir/python-testing" PYTHONDONTWRITEBYTECODE=1 \
        XFERLAB_BINARY="$build_dir/xferlab" \
        python3 -m pytest -v -rs -p no:cacheprovider tests/module \
        --ignore=tests/module/test_gpu_module.py || return
    timeout --kill-after=15 300 env PYTHONPATH="$build_dir/python" PYTHONDONTWRITEBYTECODE=1 \
        python3 -m pytest -v -rs -p no:cacheprovider tests/module/test_gpu_module.py
}

if wants module; then
    step module "$work/module-tests.log" module_tests
fi

if wants devices; then
    step devices "$work/devices.log" "$build_dir/xferlab" devices
    "$build_dir/xferlab" devices --json >"$work/devices.json" 2>&1
fi

if wants bench; then
    for b in "${benches[@]}"; do
        name=${b%% *}
        args=${b#"$name"}
        # shellcheck disable=SC2086
        step "bench $name" "$work/bench-$name.log" "$build_dir/tests/$name" $args
    done
fi

if wants module-bench; then
    for ((pass = 1; pass <= bench_passes; ++pass)); do
        name=bench-module
        [ "$bench_passes" -gt 1 ] && name=bench-module-pass$pass
        # shellcheck disable=SC2086
        step "module-bench $pass" "$work/$name.log" \
            env PYTHONPATH="$build_dir/$bench_module_dir" python3 tests/bench/bench-module.py \
            --json "$work/$name.json" $bench_args
    done
fi

# `pip install .` as a user with an index would run it, but offline (the venv's scikit-build-core
# and pybind11), into a throw-away folder; then the module it made copies one array each way.
# shellcheck disable=SC2317  # called through step()
pip_install_check() {
    local target=$work/pip-target
    rm -rf "$target" "$root/build/pip"
    CMAKE_PREFIX_PATH=$deps pybind11_ROOT=$(python3 -m pybind11 --cmakedir) \
        python3 -m pip install -v --no-build-isolation --no-deps --target "$target" \
        --config-settings=build-dir="$root/build/pip" "$root" || return
    (cd /tmp && PYTHONPATH=$target python3 -c '
import numpy as np, cupy, xferlab
print("imported", xferlab.__file__)
a = (np.arange(64 << 20) % 251).astype(np.uint8)
d = cupy.empty(a.size, dtype=cupy.uint8); xferlab.copy(d, a)
b = np.empty_like(a); xferlab.copy(b, d)
assert (b == a).all(), "bytes differ"; print("64 MiB there and back: bytes equal")')
    local rc=$?
    # What pip built carries no hook of the harness (tests/module/test_module_contents.py holds
    # the test build to the same).
    local hooks
    hooks=$(nm -C "$target"/xferlab/_core*.so | grep -cE \
        'timed_block_hooks|CorrelatingProbe|CorrelationAlias|payload_engine_probe|CuptiTracer|HarnessProbe')
    echo "harness symbols in the wheel's module: $hooks"
    [ "$hooks" -eq 0 ] || rc=1
    rm -rf "$target"  # not returned: only the log matters
    return "$rc"
}

if wants pip; then
    step pip "$work/pip.log" pip_install_check
fi

if wants runs; then
    for f in "${scenarios[@]}"; do
        name=$(basename "$f" .toml)
        step "run $name" "$work/run-$name.log" \
            "$build_dir/xferlab" run "$f" --quiet --force --out "$work/runs/$name" "${sets[@]}"
    done
    [ ${#scenarios[@]} -eq 0 ] && summary+=("runs: no scenario files given")
fi

# The summary: one line per step, the tail of each failing log, then the test totals.
{
    echo "gpu-host.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader 2>/dev/null |
        sed 's/^/gpu: /'
    printf '%s\n' "${summary[@]}"
    [ -f "$work/ctest.log" ] && grep -E "tests passed|tests failed|Total Test time" "$work/ctest.log"
    [ -f "$work/module-tests.log" ] && tail -n 1 "$work/module-tests.log" | sed 's/^/module: /'
    if [ -f "$work/gpu-tests.log" ]; then
        grep -E "^(SKIPPED|cuda):" "$work/gpu-tests.log"
        grep -E "All tests passed|test cases:|assertions:" "$work/gpu-tests.log" | tail -3
    fi
    for f in "${scenarios[@]}"; do
        name=$(basename "$f" .toml)
        [ -f "$work/runs/$name/results.json" ] && echo "results: runs/$name/results.json"
    done
    [ $failed -eq 0 ] && echo "ALL STEPS OK" || echo "SOME STEPS FAILED (see above)"
} >"$work/summary.txt"

if [ "$pack" = 1 ]; then
    cp "$work/summary.txt" "$out/summary.txt"
    [ -f "$work/gpu-tests.log" ] && cp "$work/gpu-tests.log" "$out/gpu-tests.log"
    for f in "$work"/bench-module*.log; do [ -f "$f" ] && cp "$f" "$out/"; done
    [ -f "$work/module-tests.log" ] && cp "$work/module-tests.log" "$out/module-tests.log"
    tar -czf "$out/gpu-host.tar.gz" -C "$out" gpu-host && rm -rf "$work"
    echo "packed: $out/gpu-host.tar.gz (+ summary.txt, gpu-tests.log)" >>"$out/summary.txt"
fi
cat "$out/summary.txt"
exit $failed
