#!/usr/bin/env bash
# Fetches pybind11 3.1 (Debian sid's pybind11-dev: headers and CMake config, architecture all)
# into a cache folder, for the sibling executables built against CPython 3.13 (free-threaded,
# and with a GIL per sub-interpreter): Debian 12's own pybind11 is 2.10, which supports
# neither. The machine's apt sources are untouched (tools/lib/private-apt.sh).
#
#   tools/fetch-pybind11.sh [--cache DIR]
#
#   --cache DIR   where the package is unpacked (default: .cache/pybind11 in the repository;
#                 $XFER_PYBIND11_CACHE overrides)
#
# Prints the CMake config folder last (pybind11_DIR), e.g. .cache/pybind11/usr/lib/cmake/pybind11.
# A cache that already holds pybind11 3.x is reused as it is. The GPU host has no network: the
# folder travels there in a carried path (tools/gpu-interpreters.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${XFER_PYBIND11_CACHE:-$root/.cache/pybind11}
while [ $# -gt 0 ]; do
    case "$1" in
        --cache) cache=$2; shift 2 ;;
        -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "fetch-pybind11.sh: unknown argument $1 (expected --cache DIR)" >&2; exit 2 ;;
    esac
done
# shellcheck source=tools/lib/private-apt.sh
. "$root/tools/lib/private-apt.sh"

config_dir=$cache/usr/lib/cmake/pybind11
# "3.1.0" from the installed headers; empty when there are none.
installed_version() {
    local h=$cache/usr/include/pybind11/detail/common.h
    [ -f "$h" ] || return 0
    awk '/define PYBIND11_VERSION_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END{print v}' "$h"
}

version=$(installed_version)
if [[ $version == 3.* ]] && [ -f "$config_dir/pybind11Config.cmake" ]; then
    echo "== pybind11: reusing $cache ($version)" >&2
else
    mkdir -p "$cache"
    private_apt_init "$cache/apt" "$(private_apt_line deb sid)"
    echo "== pybind11: fetching pybind11-dev from Debian sid (private apt configuration in $cache/apt)" >&2
    apt-get "${private_apt_options[@]}" -qq update >&2
    rm -f "$cache"/pybind11-dev_*.deb
    (cd "$cache" && apt-get "${private_apt_options[@]}" -qq download pybind11-dev >&2)
    deb=$(ls "$cache"/pybind11-dev_*.deb | head -1)
    dpkg-deb -x "$deb" "$cache"
    version=$(installed_version)
    [[ $version == 3.* ]] || {
        echo "fetch-pybind11.sh: $deb holds pybind11 '$version', expected 3.x" >&2
        exit 1
    }
    echo "== pybind11: $version unpacked from $(basename "$deb")" >&2
fi
echo "$config_dir"
