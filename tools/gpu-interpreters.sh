#!/usr/bin/env bash
# scenarios/isolate-interpreter.toml on the GPU host (issue 46): host, python, python-ft and
# python-subinterp, with and without Python work between copies, in ONE device call. The GPU
# host has no network: the CPython 3.13 source and pybind11 3.1 travel in a carried folder made
# here first.
#
#   tools/gpu-interpreters.sh pack [DIR]
#       here: DIR (default .cache/gpu-carry) gets python3.13-trimmed.tar.xz (Debian trixie's
#       CPython 3.13 source without its test suite, docs and Windows/macOS folders, ~11 MB) and
#       pybind11/ (include/ and lib/cmake/ of .cache/pybind11, ~1.4 MB); prints the size that
#       travels. Needs the unpacked source of tools/build-free-threaded-python.sh and the package
#       of tools/fetch-pybind11.sh, in their caches ($XFER_CPYTHON_CACHE, $XFER_PYBIND11_CACHE:
#       another checkout's .cache serves as well).
#   tools/gpu-interpreters.sh measure [--carry DIR] [--trials N] [--set KEY=VALUE]...
#                                     [--scenario FILE]... [--out DIR]
#       there: builds the free-threaded CPython from DIR's tarball into .cache/cpython (about a
#       minute on 16 CPUs), configures build-interp against .deps and the venv's Python 3.12
#       (pybind11 3.1: python-subinterp runs in xferlab's own worker process) with xferlab-ft
#       beside it, builds both (tests left out), runs the scenario on the CUDA backend with
#       --trials N (default 5) and the --set values, and writes into --out (default $OUT):
#       summary.txt (per run: gap after a copy p50/p90, hand-off rate, aggregate and per-copy
#       rates; tools/interpreter-summary.py), report.txt (--full), steps.log, results.json.xz
#       and interpreters.tar.gz (the logs and the machine's description). --scenario FILE
#       (repeatable) runs those files instead, one after the other, each within the run step's
#       limit, into report-NAME.txt and results-NAME.json.xz, with tools/gap-summary.py's table
#       of each in summary.txt (the gap taken apart: issue 57).
# Exit status: 0 when every step succeeded.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

pack() {
    local dir=${1:-.cache/gpu-carry}
    local cpython=${XFER_CPYTHON_CACHE:-.cache/cpython} pybind11=${XFER_PYBIND11_CACHE:-.cache/pybind11}
    local src
    src=$(find "$cpython/src" -maxdepth 1 -type d -name 'Python-3.13*' 2>/dev/null | head -1)
    [ -n "$src" ] || { echo "no CPython source under $cpython/src: run tools/build-free-threaded-python.sh" >&2; exit 2; }
    [ -d "$pybind11/usr/include/pybind11" ] || { echo "no pybind11 in $pybind11: run tools/fetch-pybind11.sh" >&2; exit 2; }
    mkdir -p "$dir"
    local name
    name=$(basename "$src")
    # What the build and install of the interpreter never read (configure --disable-test-modules
    # installs no tests either): the carry limit is 64 MiB with the tree and .deps.
    tar -C "$(dirname "$src")" -cf - \
        --exclude="$name/Lib/test" --exclude="$name/Doc" --exclude="$name/PC" \
        --exclude="$name/PCbuild" --exclude="$name/Mac" --exclude="$name/Lib/idlelib" \
        --exclude="$name/Lib/tkinter" --exclude="$name/Misc/NEWS" "$name" |
        xz -T0 -6 >"$dir/python3.13-trimmed.tar.xz"
    rm -rf "$dir/pybind11" && mkdir -p "$dir/pybind11/lib"
    cp -r "$pybind11/usr/include" "$dir/pybind11/"
    cp -r "$pybind11/usr/lib/cmake" "$dir/pybind11/lib/"
    du -sh "$dir" .deps 2>/dev/null
    echo "tracked tree: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes"
    echo "carry: $dir (and .deps); the device tool takes 64 MiB in all"
}

measure() {
    local carry=.cache/gpu-carry trials=5 out=${OUT:-$PWD/interp-out}
    local sets=() files=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --carry) carry=$2; shift 2 ;;
            --trials) trials=$2; shift 2 ;;
            --set) sets+=(--set "$2"); shift 2 ;;
            --scenario) files+=("$2"); shift 2 ;;
            --out) out=$2; shift 2 ;;
            *) echo "gpu-interpreters.sh measure: unknown argument $1 (see --help)" >&2; exit 2 ;;
        esac
    done
    mkdir -p "$out/interp" || exit 2
    out=$(cd "$out" && pwd)
    [ -f "$carry/python3.13-trimmed.tar.xz" ] || {
        echo "no $carry/python3.13-trimmed.tar.xz: run tools/gpu-interpreters.sh pack here and carry $carry" >&2
        exit 2
    }
    carry=$(cd "$carry" && pwd)
    local work=$out/interp jobs
    jobs=$(nproc)
    local deps=$root/.deps/usr
    export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local failed=0 summary=()
    # step NAME LIMIT COMMAND...: output to $work/NAME.log, time limit LIMIT seconds.
    step() {
        local name=$1 limit=$2 t0=$SECONDS rc
        shift 2
        echo "== $name ($(date -u +%H:%M:%S)): $*" | tee -a "$work/steps.log"
        timeout --kill-after=10 "$limit" "$@" >"$work/$name.log" 2>&1
        rc=$?
        summary+=("$(printf '%-12s rc=%-4s %4ss' "$name" "$rc" "$((SECONDS - t0))")")
        [ $rc -eq 0 ] || { failed=1; tail -n 20 "$work/$name.log" | tee -a "$work/steps.log"; }
        return $rc
    }
    {
        nvidia-smi -q; nvidia-smi topo -m; lscpu; free -g; uname -a; head -4 /etc/os-release
        python3 --version; python3 -m pybind11 --version; cmake --version | head -1
        git -C "$root" describe --always --dirty
    } >"$work/machine.txt" 2>&1

    # Each step needs the one before; whatever happened, what there is comes back.
    local python
    python=$(command -v python3)
    if step interpreter 300 tools/build-free-threaded-python.sh --cache "$root/.cache/cpython" \
        --source-tarball "$carry/python3.13-trimmed.tar.xz" --no-test-modules --jobs "$jobs" &&
        step configure 120 cmake -S "$root" -B "$root/build-interp" -G Ninja \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$deps" \
            -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" \
            -DPython_EXECUTABLE="$python" -DPYTHON_EXECUTABLE="$python" -DXFER_BUILD_TESTS=OFF \
            -DXFER_FREE_THREADED_PYTHON="$root/.cache/cpython/free-threaded/bin/python3.13t" \
            -DXFER_SIBLING_PYBIND11_DIR="$carry/pybind11/lib/cmake/pybind11" \
            -DXFER_SIBLING_JOBS="$jobs" &&
        step build 300 cmake --build "$root/build-interp" -j "$jobs" \
            --target xferlab xferlab-ft_build; then
        "$root/build-interp/xferlab" devices --json >"$work/devices.json" 2>&1
        if [ ${#files[@]} -eq 0 ]; then
            # SIGINT at the limit: xferlab writes what it has (a partial report), exits 130.
            step run 360 timeout -s INT 330 "$root/build-interp/xferlab" run \
                scenarios/isolate-interpreter.toml --trials "$trials" "${sets[@]}" --quiet \
                --force --out "$work/results"
            "$root/build-interp/xferlab" report "$work/results" --full >"$out/report.txt" 2>&1
        fi
        local f name
        for f in "${files[@]}"; do
            name=$(basename "$f" .toml)
            step "run-$name" 360 timeout -s INT 330 "$root/build-interp/xferlab" run "$f" \
                --trials "$trials" "${sets[@]}" --quiet --force --out "$work/results-$name"
            "$root/build-interp/xferlab" report "$work/results-$name" --full \
                >"$out/report-$name.txt" 2>&1
        done
    fi
    {
        printf '%s\n' "${summary[@]}"
        [ ! -f "$work/results/results.json" ] ||
            python3 tools/interpreter-summary.py "$work/results/results.json"
        for f in "${files[@]}"; do
            name=$(basename "$f" .toml)
            [ ! -f "$work/results-$name/results.json" ] || {
                echo "== $name"
                python3 tools/interpreter-summary.py "$work/results-$name/results.json"
                python3 tools/gap-summary.py "$work/results-$name/results.json"
            }
        done
    } >"$out/summary.txt" 2>&1
    cp "$work/steps.log" "$out/steps.log"
    # The results file on its own, compressed: the device tool returns files of 16 MiB at most,
    # and the folder's trace, CSVs and SQLite twin are all rendered again from it.
    [ ! -f "$work/results/results.json" ] ||
        xz -T0 -9 -c "$work/results/results.json" >"$out/results.json.xz"
    for f in "${files[@]}"; do
        name=$(basename "$f" .toml)
        [ ! -f "$work/results-$name/results.json" ] ||
            xz -T0 -9 -c "$work/results-$name/results.json" >"$out/results-$name.json.xz"
    done
    tar -czf "$out/interpreters.tar.gz" -C "$out" --exclude='interp/results*' interp && rm -rf "$work"
    cat "$out/summary.txt"
    return $failed
}

case "${1:-}" in
    pack) shift; pack "$@" ;;
    measure) shift; measure "$@" ;;
    -h | --help) sed -n '2,24p' "$0" ;;
    *) echo "usage: tools/gpu-interpreters.sh pack [DIR] | measure [options] (see --help)" >&2; exit 2 ;;
esac
