#!/usr/bin/env bash
# `xferlab watch` on the GPU host (issue 56), in one device call of at most ~8 minutes: build
# what it runs (tools/gpu-host.sh's machine, configure and build steps, a few targets), the GPU
# tests of the real injected library, the four programs of tests/watch_programs under
# `xferlab watch` (each with its report, the full report beside it), two comparisons, the
# overhead benchmark (tests/bench/bench-watch-overhead.py), and the first-touch scenario
# (scenarios/seed-h2d-first-touch.toml, one trial at 1 GiB). Every step logs to its own file,
# has a time limit, and is skipped with a line in the summary once the budget is spent.
#
#   tools/gpu-watch.sh [--out DIR] [--build-dir DIR] [--trials N] [--budget S] [--steps LIST]
#
# Options:
#   --out DIR        output folder (default: $OUT when set, else ./gpu-watch-out)
#   --build-dir DIR  build folder (default: build-gpu; kept between calls on a warm machine)
#   --trials N       overhead benchmark trials (default 5)
#   --budget S       seconds for the whole script (default 470): a step that would start with
#                    less than its own limit left is skipped and named in the summary; on a
#                    machine still warm, `--steps overhead,scenario` runs what was skipped
#                    (the build folder is kept)
#   --steps LIST     comma-separated subset of: build,tests,programs,overhead,scenario
#                    (default: all, in that order)
#
# What comes back (the device tool returns at most 8 files): $OUT/summary.txt, $OUT/overhead.txt,
# $OUT/cupy-set.txt (the first program's report), $OUT/gpu-watch.tar.gz (everything: each
# program's results folder with report.txt and report-full.txt, the logs, overhead.json).
# Exit status: 0 when every step ran and succeeded, 1 otherwise.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$PWD/gpu-watch-out}
build_dir=build-gpu
trials=5
budget=470
steps=build,tests,programs,overhead,scenario

while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --build-dir) build_dir=$2; shift 2 ;;
        --trials) trials=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "gpu-watch.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

cd "$root" || exit 2
case "$build_dir" in /*) ;; *) build_dir=$root/$build_dir ;; esac
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$out/gpu-watch
rm -rf "$work"
mkdir -p "$work"
export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
xferlab=$build_dir/xferlab

summary=()
failed=0
wants() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# step NAME LIMIT LOG COMMAND...: COMMAND with a time limit, output to LOG, its outcome in the
# summary; skipped when fewer than LIMIT seconds of the budget are left.
step() {
    local name=$1 limit=$2 log=$3; shift 3
    local left=$((budget - SECONDS))
    if [ "$left" -lt "$limit" ]; then
        summary+=("$(printf '%-34s skipped: %ss of the budget left, the step may take %ss' "$name" "$left" "$limit")")
        failed=1
        return 1
    fi
    local t0=$SECONDS rc
    echo "== $name ($(date -u +%H:%M:%S)): $*" | tee -a "$work/steps.log"
    echo "# $*" >"$log"
    if declare -F "$1" >/dev/null; then
        "$@" >>"$log" 2>&1
    else
        timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
    fi
    rc=$?
    summary+=("$(printf '%-34s rc=%-4s %4ss  %s' "$name" "$rc" "$((SECONDS - t0))" "${log#"$out"/}")")
    if [ $rc -ne 0 ]; then
        failed=1
        summary+=("$(tail -n 12 "$log" | sed 's/^/      | /')")
    fi
    return "$rc"
}

if wants build; then
    step build 300 "$work/build.log" "$root/tools/gpu-host.sh" --out "$work/host" --no-pack \
        --build-dir "$build_dir" --steps machine,configure,build --step-timeout 280 \
        --targets "xferlab xferlab_watch xferlab-watch-cuda test_gpu xferlab_core"
fi

if wants tests; then
    step "gpu tests [watch]" 90 "$work/gpu-watch-tests.log" "$build_dir/tests/test_gpu" "[watch]" -d yes
fi

# watch_program NAME LIMIT XFERLAB-WATCH-FLAGS... -- PROGRAM...: the program under `xferlab
# watch` into NAME/ (stopped after LIMIT seconds: SIGTERM, which xferlab passes on), its report
# beside the results (report.txt) and the full one (report-full.txt).
# shellcheck disable=SC2317  # called through step()
watch_program() {
    local name=$1 limit=$2; shift 2
    timeout --kill-after=10 "$limit" "$xferlab" watch --out "$work/$name" --force "$@" \
        >"$work/$name.report.txt" || return
    cp "$work/$name.report.txt" "$work/$name/report.txt"
    "$xferlab" report --full "$work/$name" >"$work/$name/report-full.txt"
}

if wants programs; then
    # The module of `import xferlab` (xferlab_copy_threads.py) as built above.
    export PYTHONPATH="$build_dir/python${PYTHONPATH:+:$PYTHONPATH}"
    programs=$root/tests/watch_programs
    step "watch cupy-set" 60 "$work/cupy-set.log" watch_program cupy-set 55 --calibrate -- \
        python3 "$programs/cupy_set_threads.py"
    step "watch xferlab-copy" 45 "$work/xferlab-copy.log" watch_program xferlab-copy 40 -- \
        python3 "$programs/xferlab_copy_threads.py"
    # --min-bytes: the labels' copies (a few hundred bytes each) are counted, not recorded.
    step "watch torch-pageable" 60 "$work/torch-pageable.log" watch_program torch-pageable 55 \
        --min-bytes 64KiB -- \
        python3 "$programs/torch_dataloader.py"
    step "watch torch-pinned" 60 "$work/torch-pinned.log" watch_program torch-pinned 55 \
        --min-bytes 64KiB -- \
        python3 "$programs/torch_dataloader.py" --pin-memory
    step "watch multiprocessing" 60 "$work/multiprocessing.log" watch_program multiprocessing 55 -- \
        python3 "$programs/multiprocessing_copies.py"
    step "watch cupy-set-main-touch" 45 "$work/cupy-set-main-touch.log" watch_program \
        cupy-set-main-touch 40 -- python3 "$programs/cupy_set_threads.py" --first-touch main
    step "compare torch" 20 "$work/compare-torch.txt" "$xferlab" compare \
        "$work/torch-pageable" "$work/torch-pinned"
    step "compare cupy-set xferlab-copy" 20 "$work/compare-cupy-xferlab.txt" "$xferlab" compare \
        "$work/cupy-set" "$work/xferlab-copy"
fi

if wants overhead; then
    step overhead 120 "$work/overhead.txt" python3 "$root/tests/bench/bench-watch-overhead.py" \
        --build "$build_dir" --trials "$trials" --json "$work/overhead.json"
fi

if wants scenario; then
    step "scenario seed-h2d-first-touch" 100 "$work/seed-h2d-first-touch.log" "$xferlab" run \
        "$root/scenarios/seed-h2d-first-touch.toml" --quiet --force \
        --out "$work/seed-h2d-first-touch" --set scenario.trials=1 --set transfer.bytes=1GiB
fi

{
    echo "gpu-watch.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ), ${SECONDS}s"
    nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    (git -C "$root" describe --always --dirty 2>/dev/null || echo "no git") | sed 's/^/tree: /'
    printf '%s\n' "${summary[@]}"
    [ -f "$work/gpu-watch-tests.log" ] &&
        grep -E "^(SKIPPED|cuda):|All tests passed|test cases:" "$work/gpu-watch-tests.log"
    [ -f "$work/overhead.txt" ] && sed -n '2,$p' "$work/overhead.txt"
    [ $failed -eq 0 ] && echo "ALL STEPS OK" || echo "SOME STEPS FAILED OR WERE SKIPPED (see above)"
} >"$work/summary.txt"

cp "$work/summary.txt" "$out/summary.txt"
[ -f "$work/overhead.txt" ] && cp "$work/overhead.txt" "$out/overhead.txt"
[ -f "$work/cupy-set.report.txt" ] && cp "$work/cupy-set.report.txt" "$out/cupy-set.txt"
# The raw record files stay in: they are what the reports were made from (kilobytes here).
tar -czf "$out/gpu-watch.tar.gz" -C "$out" gpu-watch && rm -rf "$work"
cat "$out/summary.txt"
exit $failed
