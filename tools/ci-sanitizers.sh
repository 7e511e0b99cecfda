#!/usr/bin/env bash
# Builds xferlab with sanitizers and runs the whole ctest suite under them (issue 6).
#   tools/ci-sanitizers.sh address,undefined   # ASan + UBSan (+ LSan), in ${BUILD_DIR}-asan
#   tools/ci-sanitizers.sh thread              # TSan, in ${BUILD_DIR}-tsan
# How they are configured: tools/ci-configure-sanitized.sh. Suppressions: tests/sanitizers/,
# compiled into every executable (cmake/sanitizers.cmake). Any finding fails its test, and this.
# Environment: BUILD_DIR (default build), JOBS (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-}
case "$kind" in
address,undefined) suffix=asan ;;
thread) suffix=tsan ;;
*)
    echo "usage: tools/ci-sanitizers.sh address,undefined|thread" >&2
    exit 2
    ;;
esac
build_dir=${BUILD_DIR:-build}-$suffix
jobs=${JOBS:-$(nproc)}

tools/ci-configure-sanitized.sh "$kind" "$build_dir"
echo "== ci-sanitizers: build $build_dir" >&2
cmake --build "$build_dir" -j "$jobs" >&2
echo "== ci-sanitizers: ctest in $build_dir ($kind)" >&2
cd "$build_dir"
ctest --output-on-failure -j "$jobs" --timeout 900
