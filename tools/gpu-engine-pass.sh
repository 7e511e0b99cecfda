#!/usr/bin/env bash
# Issue #45's pass on the GPU host in one device call (docs/gpu-host.md, "The engine's pass"):
# build, the GPU tests and the module's tests, then the issue's benchmark: this build's engine
# against main's (built from .old-engine, module only), CuPy and torch, 1 and 4 callers, both
# ways; the CuPy-path experiment; numpy.memmap warm and cold against read()
# into page-locked memory; the host-memory ceiling; and, time allowing, four processes
# (scenarios/cure-processes.toml). Every step logs to its own file; the script carries on past
# a failing step and keeps to a deadline, so that what ran comes back.
#
#   here, once:        tools/gpu-engine-pass.sh --prepare-old 7a2cbcd   (main's tree into
#                      .old-engine, which .gitignore ignores: carry it, with .deps)
#   on the GPU host:   tools/gpu-engine-pass.sh [--trials N] [--seconds S]
#
# Output under $OUT (default ./engine-pass-out): summary.txt, bench.log, bench.json,
# gpu-tests.log, module-tests.log beside engine-pass.tar.gz (everything). Exit status 0 when
# every step succeeded.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$PWD/engine-pass-out}
trials=5
seconds=540  # the whole pass: the device tool allows 600 per command
old_src=$root/.old-engine

while [ $# -gt 0 ]; do
    case "$1" in
        --prepare-old)
            # The Python package's folder: python/, python_lib/ before issue 47.
            lib=python
            git -C "$root" cat-file -e "$2:python_lib" 2>/dev/null && lib=python_lib
            rm -rf "$old_src" && mkdir -p "$old_src" &&
                git -C "$root" archive "$2" CMakeLists.txt cmake app "$lib" pyproject.toml |
                tar -x -C "$old_src" && echo "$2" >"$old_src/COMMIT" &&
                echo "main's tree at $2 in $old_src ($(du -sh "$old_src" | cut -f1)); carry .old-engine"
            exit $? ;;
        --trials) trials=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "gpu-engine-pass.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

cd "$root" || exit 2
start=$SECONDS
left() { echo $((seconds - (SECONDS - start))); }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$out/engine-pass
mkdir -p "$work"
deps=$root/.deps/usr
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
jobs=$(nproc 2>/dev/null || echo 16)
failed=0
summary=()

# note NAME RC SECONDS: one line of the summary.
note() {
    summary+=("$(printf '%-26s rc=%-4s %5ss' "$1" "$2" "$3")")
    [ "$2" -eq 0 ] || failed=1
}

# 1. Build what the pass runs (not the unit and integration tests: CI runs those).
t=$SECONDS
tools/gpu-host.sh --out "$work/host" --no-pack --jobs "$jobs" --steps machine,configure,build \
    --targets "xferlab test_gpu xferlab_core xferlab_core_testing" >"$work/host-build.log" 2>&1
note "build (gpu-host.sh)" $? $((SECONDS - t))

# 2. Main's module beside it (in the background while the tests run): module-only, as pip
# builds it, then renamed xferlab_old so that one process imports both.
old_pid=""
if [ -f "$old_src/CMakeLists.txt" ]; then
    (
        cmake -S "$old_src" -B "$root/build-old" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DXFER_PYTHON_MODULE_ONLY=ON -DXFER_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$deps" \
            -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" \
            -DPython_EXECUTABLE="$(command -v python3)" -DPYTHON_EXECUTABLE="$(command -v python3)" &&
            nice -n 10 cmake --build "$root/build-old" -j "$((jobs / 2))" &&
            rm -rf "$root/build-old/pkg" && mkdir -p "$root/build-old/pkg" &&
            cp -r "$root/build-old/python/xferlab" "$root/build-old/pkg/xferlab_old"
    ) >"$work/old-build.log" 2>&1 &
    old_pid=$!
else
    echo "no .old-engine (tools/gpu-engine-pass.sh --prepare-old COMMIT): no old engine" \
        >"$work/old-build.log"
fi

# 3. The GPU tests, the module's fake-device suite (its test build) and its GPU suite.
t=$SECONDS
tools/gpu-host.sh --out "$work/tests" --no-pack --jobs "$jobs" --steps gpu,module \
    --step-timeout 300 >"$work/host-tests.log" 2>&1
note "gpu and module tests" $? $((SECONDS - t))

old_args=()
if [ -n "$old_pid" ]; then
    t=$SECONDS
    wait "$old_pid"
    rc=$?
    note "main's module (build-old)" $rc $((SECONDS - t))
    [ $rc -eq 0 ] && old_args=(--old "$root/build-old/pkg")
fi

# 4. The issue's benchmark, within what is left (processes and packing keep ~140 s: 25 runs
#    of four processes, about 4 s each, and the packing).
budget=$(($(left) - 140))
if [ "$budget" -gt 60 ]; then
    t=$SECONDS
    timeout --kill-after=10 "$budget" env PYTHONPATH="$root/build-gpu/python" \
        python3 tests/bench/bench-module.py --bytes 1GiB --trials "$trials" --copies 3 \
        --sections engines,cupy-path,memmap,hostmem --memmap-dir "$root/build-gpu" \
        "${old_args[@]}" --json "$work/bench.json" >"$work/bench.log" 2>&1
    note "benchmark (${budget}s at most)" $? $((SECONDS - t))
else
    note "benchmark: no time left" 1 0
fi

# 5. Four processes on one device with [staging]'s (now the module's) defaults, time allowing.
if [ "$(left)" -gt 100 ]; then
    t=$SECONDS
    timeout --kill-after=10 $(($(left) - 15)) build-gpu/xferlab run scenarios/cure-processes.toml \
        --quiet --force --out "$work/runs/cure-processes" >"$work/cure-processes.log" 2>&1
    note "cure-processes.toml" $? $((SECONDS - t))
else
    summary+=("cure-processes.toml: skipped, $(left) s left")
fi

# 6. The summary and the files that come back (at most 8).
{
    echo "gpu-engine-pass.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - start)) s"
    nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    echo "tree: $(git -C "$root" describe --always --dirty 2>/dev/null || echo 'no git')," \
        "old engine: $(cat "$old_src/COMMIT" 2>/dev/null || echo none)"
    printf '%s\n' "${summary[@]}"
    grep -E "rc=|passed|assertions|ALL|SOME" "$work/tests/summary.txt" 2>/dev/null
    grep -E "^bench-module|Traceback" "$work/bench.log" 2>/dev/null
    [ $failed -eq 0 ] && echo "ALL STEPS OK" || echo "SOME STEPS FAILED (see the logs)"
} >"$out/summary.txt"
for f in bench.log bench.json; do [ -f "$work/$f" ] && cp "$work/$f" "$out/"; done
for f in gpu-tests.log module-tests.log; do
    [ -f "$work/tests/gpu-host/$f" ] && cp "$work/tests/gpu-host/$f" "$out/"
    [ -f "$work/tests/$f" ] && cp "$work/tests/$f" "$out/"
done
tar -czf "$out/engine-pass.tar.gz" -C "$out" engine-pass && rm -rf "$work"
cat "$out/summary.txt"
exit $failed
