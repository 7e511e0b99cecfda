#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) and runs each from its seed corpus for a bounded
# time (issue 6). Any crash, leak, undefined behaviour or timeout fails the script; libFuzzer
# leaves the input that did it in ${BUILD_DIR}-asan/fuzz-artifacts/. The targets live in the
# ASan+UBSan build (tools/ci-configure-sanitized.sh); when tools/ci-sanitizers.sh built it
# already, only they are brought up to date.
#   tools/ci-fuzz.sh            # each target FUZZ_SECONDS (default 60) seconds, JOBS at once
# Environment: BUILD_DIR (default build; this uses ${BUILD_DIR}-asan), JOBS (default: nproc),
# FUZZ_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}-asan
jobs=${JOBS:-$(nproc)}
seconds=${FUZZ_SECONDS:-60}
targets=(fuzz_scenario_loader fuzz_set_flags fuzz_results_json fuzz_results_sqlite)

tools/ci-configure-sanitized.sh address,undefined "$build_dir"
echo "== ci-fuzz: build ${targets[*]}" >&2
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}" >&2

mkdir -p "$build_dir/fuzz-artifacts"
# The targets run side by side, as many at once as there are cores (JOBS), each for its full
# time: on CI's two cores, two waves of two.
fuzz_one() {
    local t=$1
    local seeds=("tests/fuzz/corpus/${t#fuzz_}")
    [ "$t" = fuzz_scenario_loader ] && seeds+=(scenarios)
    # Each target's own dictionary where it has one (results_json.dict, results_sqlite.dict);
    # the scenario targets share scenario.dict.
    local dict="tests/fuzz/${t#fuzz_}.dict"
    [ -f "$dict" ] || dict=tests/fuzz/scenario.dict
    # A fresh working corpus each time: the first directory receives what libFuzzer finds;
    # the seed directories are read only.
    local work="$build_dir/fuzz-corpus/$t"
    rm -rf "$work" && mkdir -p "$work"
    echo "== ci-fuzz: $t for ${seconds}s from ${seeds[*]}" >&2
    "$build_dir/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -dict="$dict" -print_final_stats=1 \
        -artifact_prefix="$build_dir/fuzz-artifacts/$t-" "$work" "${seeds[@]}" \
        2>"$build_dir/$t.log"
}
# At most JOBS targets at once: before another starts, the one JOBS places back has ended.
pids=()
statuses=()
finish() { wait "${pids[$1]}" && statuses[$1]=0 || statuses[$1]=1; }
for i in "${!targets[@]}"; do
    ((i < jobs)) || finish $((i - jobs))
    fuzz_one "${targets[$i]}" &
    pids[$i]=$!
done
for i in "${!targets[@]}"; do [ -n "${statuses[$i]:-}" ] || finish "$i"; done
failed=0
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    if [ "${statuses[$i]}" != 0 ]; then
        tail -n 60 "$build_dir/$t.log" >&2
        echo "== ci-fuzz: $t FAILED (log: $build_dir/$t.log)" >&2
        failed=1
        continue
    fi
    # libFuzzer's last status line: "#<executions> DONE cov: <edges> ft: <features>
    # corp: <inputs>/<bytes> ...", the corpus it ended with (seeds and what it added).
    # (A summary only: its absence must not fail a run that passed, hence "|| true".)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build_dir/$t.log")
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$build_dir/$t.log" | tail -n 1 || true)
    echo "== ci-fuzz: $t passed: $execs executions in ${seconds}s; $done_line" >&2
done
exit "$failed"
