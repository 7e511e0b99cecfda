#!/usr/bin/env bash
# Builds CPython 3.13 from the source Debian's archive carries, into a cache folder reused across
# runs: free-threaded (--disable-gil, PEP 703) for launcher python-ft, and optionally the same
# source with the GIL (a second, default build) for launcher python-subinterp where the embedded
# Python is older than 3.12. The machine's own apt sources are left untouched: the source is
# fetched with a private apt configuration (a deb-src line for Debian 13 "trixie") under the
# cache folder.
#
#   tools/build-free-threaded-python.sh [--cache DIR] [--with-gil] [--jobs N] [--source DIR]
#                                       [--source-tarball FILE] [--no-test-modules]
#
#   --cache DIR           where the source, the builds and the installs live (default:
#                         .cache/cpython in the repository; $XFER_CPYTHON_CACHE overrides)
#   --with-gil            also build and install the default (GIL) interpreter
#   --jobs N              parallel make jobs (default: nproc)
#   --source DIR          use an unpacked CPython 3.13 source tree instead of fetching one
#   --source-tarball FILE unpack this CPython 3.13 source tarball instead of fetching one (the
#                         GPU host has no network: a trimmed tarball travels there in an ignored,
#                         carried folder, tools/gpu-interpreters.sh pack)
#   --no-test-modules     configure --disable-test-modules: neither build nor install CPython's
#                         own test suite (a trimmed tarball has no Lib/test)
#
# Prints the install prefixes last, one per line: "free-threaded: DIR" and "gil: DIR". A prefix
# whose bin/python3.13t (bin/python3.13) already runs is reused as it is: the build is once per
# machine. CMake finds the free-threaded one with -DXFER_FREE_THREADED_PYTHON=DIR/bin/python3.13t
# (tools/bootstrap.sh does that when it is there).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${XFER_CPYTHON_CACHE:-$root/.cache/cpython}
with_gil=0
jobs=$(nproc 2>/dev/null || echo 2)
source_dir=""
source_tarball=""
test_modules=()
while [ $# -gt 0 ]; do
    case "$1" in
        --cache) cache=$2; shift 2 ;;
        --with-gil) with_gil=1; shift ;;
        --jobs) jobs=$2; shift 2 ;;
        --source) source_dir=$2; shift 2 ;;
        --source-tarball) source_tarball=$2; shift 2 ;;
        --no-test-modules) test_modules=(--disable-test-modules); shift ;;
        -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
        *)
            echo "build-free-threaded-python.sh: unknown argument $1 (see --help)" >&2
            exit 2
            ;;
    esac
done
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# shellcheck source=tools/lib/private-apt.sh
. "$root/tools/lib/private-apt.sh"

say() { echo "== cpython: $*" >&2; }

# The source: an unpacked tree given, a tarball given, one unpacked before, or Debian trixie's
# python3.13.
fetch_source() {
    if [ -n "$source_dir" ]; then
        [ -x "$source_dir/configure" ] || { echo "no CPython source (configure) in $source_dir" >&2; exit 2; }
        (cd "$source_dir" && pwd)
        return
    fi
    local unpacked
    unpacked=$(find "$cache/src" -maxdepth 1 -type d -name 'Python-3.13*' 2>/dev/null | head -1)
    if [ -n "$unpacked" ] && [ -x "$unpacked/configure" ]; then
        echo "$unpacked"
        return
    fi
    mkdir -p "$cache/src"
    local tarball=$source_tarball
    if [ -z "$tarball" ]; then
        private_apt_init "$cache/apt" "$(private_apt_line deb-src trixie)"
        say "fetching the python3.13 source from Debian trixie (private apt configuration in $cache/apt)"
        apt-get "${private_apt_options[@]}" -qq update >&2
        (cd "$cache/src" && apt-get "${private_apt_options[@]}" -qq source --download-only python3.13 >&2)
        tarball=$(ls "$cache/src"/python3.13_3.13*.orig.tar.xz | head -1)
    fi
    [ -f "$tarball" ] || { echo "no CPython source tarball at $tarball" >&2; exit 2; }
    say "unpacking $tarball"
    tar -C "$cache/src" -xf "$tarball"
    find "$cache/src" -maxdepth 1 -type d -name 'Python-3.13*' | head -1
}

# build NAME EXE CONFIGURE-FLAGS...: configure, make and install into $cache/NAME unless its
# interpreter runs already.
build() {
    local name=$1 exe=$2
    shift 2
    local prefix=$cache/$name
    if [ -x "$prefix/bin/$exe" ] && "$prefix/bin/$exe" -c 'pass' 2>/dev/null; then
        say "$name: reusing $prefix ($("$prefix/bin/$exe" -VV | head -1))"
        return
    fi
    local src
    src=$(fetch_source)
    local work=$cache/build-$name
    rm -rf "$work" && mkdir -p "$work"
    local t0=$SECONDS
    say "$name: configure and build from $src with $jobs jobs"
    # No --enable-optimizations (PGO would run the test suite: minutes more, not needed to
    # compare interpreters on the same copy routine); shared, so that xferlab can embed it.
    (cd "$work" && "$src/configure" --prefix="$prefix" --enable-shared \
        LDFLAGS="-Wl,-rpath,$prefix/lib" "${test_modules[@]}" "$@" >configure.log 2>&1) ||
        { tail -20 "$work/configure.log" >&2; exit 1; }
    (cd "$work" && make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) ||
        { tail -30 "$work/make.log" >&2; exit 1; }
    "$prefix/bin/$exe" -c 'pass'
    say "$name: built in $((SECONDS - t0)) s: $("$prefix/bin/$exe" -VV | head -1)"
    rm -rf "$work"
}

build free-threaded python3.13t --disable-gil
[ "$with_gil" = 0 ] || build gil python3.13
echo "free-threaded: $cache/free-threaded"
[ "$with_gil" = 0 ] || echo "gil: $cache/gil"
