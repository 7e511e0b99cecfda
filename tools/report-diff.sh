#!/usr/bin/env bash
# Renders every committed results.json (and *.results.json) under docs/results with two xferlab binaries and diffs
# the output of each format: a change that must not change the report (a refactor) shows here.
#   tools/report-diff.sh OLD_XFERLAB NEW_XFERLAB [FORMAT...]   (default formats: table json csv)
set -u -o pipefail
old=$1 new=$2
shift 2
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(table json csv)
cd "$(dirname "$0")/.." || exit 2
status=0 count=0
while IFS= read -r f; do
    for fmt in "${formats[@]}"; do
        count=$((count + 1))
        if ! diff -q <("$old" report "$f" --format "$fmt" 2>&1) \
                     <("$new" report "$f" --format "$fmt" 2>&1) >/dev/null; then
            echo "differs: $f ($fmt)"
            diff <("$old" report "$f" --format "$fmt" 2>&1) \
                 <("$new" report "$f" --format "$fmt" 2>&1) | head -20
            status=1
        fi
    done
done < <(find docs/results -name "*results.json" | sort)
echo "report-diff: $count renderings compared, $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
