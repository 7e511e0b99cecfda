#!/usr/bin/env bash
# Set up a Debian 12 machine, build xferlab from scratch, and either run the seed scenario
# (`demo`) or the whole test suite (`test`). README.md's two commands call this script.
#   tools/bootstrap.sh demo   # install, build, run scenarios/seed-h2d-threads.toml, print the report
#   tools/bootstrap.sh test   # install, build, run every test (ctest)
# Environment: BUILD_DIR (default build), JOBS (default: nproc).
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

packages=(cmake ninja-build g++ pkg-config python3-dev pybind11-dev libtomlplusplus-dev
    libcli11-dev catch2 nlohmann-json3-dev libfmt-dev libnuma-dev)

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

# Debian's own Python (python3-dev) is embedded, whatever `python3` is first on PATH.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3 >&2
cmake --build "$build_dir" -j "$jobs" >&2

case "$mode" in
demo)
    exec "$build_dir/xferlab" run scenarios/seed-h2d-threads.toml
    ;;
test)
    cd "$build_dir"
    exec ctest --output-on-failure -j "$jobs" --timeout 600
    ;;
esac
