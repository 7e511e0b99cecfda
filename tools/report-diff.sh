#!/usr/bin/env bash
# Renders every committed results file with two xferlab binaries and diffs the output of each
# format: a change that must not change the report (a refactor) shows here. The files: every
# *.results.json(.xz) under tests/fixtures and docs/results, that is the hand-built fixtures,
# the measured corpus (tests/support/measured_corpus.txt: each file in tests/fixtures/measured
# or docs/results, README in the former) and the other results the pages of docs/results cite.
# An .xz file is rendered from a decompressed copy (the same path for both binaries).
#   tools/report-diff.sh OLD_XFERLAB NEW_XFERLAB [FORMAT...]   (default formats: table json csv)
set -u -o pipefail
old=$1 new=$2
shift 2
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(table json csv)
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0 count=0 files=0
while IFS= read -r f; do
    files=$((files + 1))
    path=$f
    if [[ $f == *.xz ]]; then
        path=$tmp/$(basename "$f" .xz)
        xz -dc "$f" > "$path" || { echo "cannot decompress: $f"; status=1; continue; }
    fi
    for fmt in "${formats[@]}"; do
        count=$((count + 1))
        if ! diff -q <("$old" report "$path" --format "$fmt" 2>&1) \
                     <("$new" report "$path" --format "$fmt" 2>&1) >/dev/null; then
            echo "differs: $f ($fmt)"
            diff <("$old" report "$path" --format "$fmt" 2>&1) \
                 <("$new" report "$path" --format "$fmt" 2>&1) | head -20
            status=1
        fi
    done
    [[ $f == *.xz ]] && rm -f "$path"
done < <(find tests/fixtures docs/results -name "*.results.json" -o -name "*.results.json.xz" | sort)
echo "report-diff: $files files, $count renderings compared, $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
