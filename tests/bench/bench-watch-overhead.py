#!/usr/bin/env python3
"""What `xferlab watch` costs the program it watches (issue 56, item 5): the CUDA test program
(build/tests/xferlab-watch-cuda, which knows nothing of xferlab and times each of its own
cudaMemcpy calls) run unwatched and under `xferlab watch`, in interleaved trials, for each case:

  1 GiB pageable to the device   the watched rate against the unwatched one (target >= 0.98x)
  1 GiB page-locked to the device  the same, where the link alone sets the pace
  4 KiB pageable to the device   how much longer a small copy's call is watched (target: a few us)

Per trial and case: the median call of each side; the ratio of the two (rate watched / rate
unwatched for the large copies, call watched - call unwatched for the small one). Printed as a
table and written as JSON (--json) with every call of every trial.

    tests/bench/bench-watch-overhead.py --build build-gpu [--trials 5] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CASES = [
    # name, program arguments, what is compared
    ("1 GiB pageable h2d", ["--threads", "1", "--copies", "5", "--bytes", str(1 << 30)], "rate"),
    ("1 GiB pinned h2d", ["--threads", "1", "--copies", "5", "--bytes", str(1 << 30), "--pinned"],
     "rate"),
    ("4 KiB pageable h2d", ["--threads", "1", "--copies", "5000", "--bytes", "4096"], "call"),
]


def run_case(build, args, watched, scratch):
    """The program's own per-call durations (ns), watched or not."""
    times = os.path.join(scratch, "times.json")
    program = [os.path.join(build, "tests", "xferlab-watch-cuda"), *args, "--json", times]
    if watched:
        out = os.path.join(scratch, "watch-out")
        command = [os.path.join(build, "xferlab"), "watch", "--quiet", "--force", "--no-reference",
                   "--format", "json", "--out", out, "--", *program]
    else:
        command = program
    r = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {r.returncode}\n{r.stderr}")
    with open(times) as f:
        return json.load(f)["copy_ns"]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build-gpu", help="the build folder")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--json", help="write every trial's calls here")
    a = p.parse_args()
    results = {"trials": a.trials, "cases": []}
    with tempfile.TemporaryDirectory() as scratch:
        for name, args, compare in CASES:
            case = {"case": name, "compare": compare, "trials": []}
            for trial in range(a.trials):
                # Interleaved, the order alternating: drift between trials hits both sides.
                order = [False, True] if trial % 2 == 0 else [True, False]
                calls = {w: run_case(a.build, args, w, scratch) for w in order}
                plain = statistics.median(calls[False])
                watched = statistics.median(calls[True])
                case["trials"].append({
                    "unwatched_ns": calls[False], "watched_ns": calls[True],
                    "unwatched_p50_ns": plain, "watched_p50_ns": watched,
                    # rate watched / unwatched = call unwatched / call watched
                    "ratio": plain / watched, "added_ns": watched - plain})
            ratios = [t["ratio"] for t in case["trials"]]
            added = [t["added_ns"] for t in case["trials"]]
            case["median_ratio"] = statistics.median(ratios)
            case["min_ratio"], case["max_ratio"] = min(ratios), max(ratios)
            case["median_added_ns"] = statistics.median(added)
            case["min_added_ns"], case["max_added_ns"] = min(added), max(added)
            results["cases"].append(case)
    print(f"xferlab watch overhead, {a.trials} interleaved trials (median call per trial)")
    for c in results["cases"]:
        if c["compare"] == "rate":
            print(f"  {c['case']:22} watched/unwatched rate {c['median_ratio']:.4f}x "
                  f"(trials {c['min_ratio']:.4f}-{c['max_ratio']:.4f}); target >= 0.98x")
        else:
            print(f"  {c['case']:22} call +{c['median_added_ns'] / 1e3:.2f} us watched "
                  f"(trials {c['min_added_ns'] / 1e3:+.2f} to {c['max_added_ns'] / 1e3:+.2f} us); "
                  f"unwatched p50 {statistics.median(t['unwatched_p50_ns'] for t in c['trials']) / 1e3:.2f} us")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
