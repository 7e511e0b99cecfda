#!/usr/bin/env bash
# Configures a sanitizer build directory the way CI builds it; used by tools/ci-sanitizers.sh
# and tools/ci-fuzz.sh so that both build the same thing.
#   tools/ci-configure-sanitized.sh address,undefined DIR   # ASan+UBSan, with the fuzz targets
#   tools/ci-configure-sanitized.sh thread DIR              # TSan
# clang 14, no CUDA and no MPI (neither library is instrumented: their own allocations and
# threads would be reported; the plain build tests launcher mpi under mpirun), no benchmarks, -O0 with line tables: a sanitizer build checks the code and
# measures nothing, and -O0 halves its compile time (on a 2-core machine, the bulk of CI).
# The address,undefined build also carries the libFuzzer targets (XFER_FUZZ): the same
# instrumented libraries serve the test suite and the fuzzers, built once.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-}
dir=${2:-}
case "$kind" in
address,undefined) extra=(-DXFER_FUZZ=ON) ;;
thread) extra=() ;;
*) kind="" ;;
esac
if [ -z "$kind" ] || [ -z "$dir" ]; then
    echo "usage: tools/ci-configure-sanitized.sh address,undefined|thread DIR" >&2
    exit 2
fi

echo "== configure $dir ($kind)" >&2
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    "-DCMAKE_C_FLAGS_DEBUG=-O0 -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only" \
    -DXFER_SANITIZE="$kind" "${extra[@]}" -DXFER_WITH_CUDA=OFF -DXFER_WITH_MPI=OFF -DXFER_BUILD_BENCH=OFF \
    -DPYTHON_EXECUTABLE=/usr/bin/python3 >&2
