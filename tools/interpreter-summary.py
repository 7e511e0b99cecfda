#!/usr/bin/env python3
"""Per interpreter, what scenarios/isolate-interpreter.toml measured, from its results.json: one
line per run of the plan (its trials together), each figure the median over the trials with the
trials' range, then each run's notes on the Python work between copies.

    tools/interpreter-summary.py RESULTS.json

gap p50 / p90: the run's workers' own gap p50s (the median of them, as the report's lists give
it) and the p90 over every gap of the run; the gap is a call's start minus the same worker's
previous return. hand-off: the mean hand-off rate over the run's devices with 2+ workers.
aggregate: bytes moved in the measurement window / window; per-copy: p50 of bytes / call time.
"""
import json
import statistics
import sys


def median_range(values, scale, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    text = fmt.format(statistics.median(values) * scale)
    if len(values) > 1:
        text += " (" + fmt.format(min(values) * scale) + "-" + fmt.format(max(values) * scale) + ")"
    return text


def run_figures(run):
    a = run.get("analysis") or {}
    worker_gaps = [w["gap_ns"]["p50"] for w in a.get("workers", []) if w.get("gap_ns")]
    handoffs = [h["handoff_rate"] for h in a.get("handoffs", []) if h.get("workers", 0) >= 2]
    return {
        "aggregate": a.get("aggregate_Bps"),
        "per_copy": (a.get("per_copy_Bps") or {}).get("p50"),
        "gap_p50": statistics.median(worker_gaps) if worker_gaps else None,
        "gap_p90": (a.get("gap_ns") or {}).get("p90"),
        "handoff": statistics.mean(handoffs) if handoffs else None,
    }


def main(path):
    results = json.load(open(path))
    groups = {}  # base label -> runs (its trials), in plan order
    for run in results["runs"]:
        groups.setdefault(run.get("base_label") or run["label"], []).append(run)
    print(f"{path}: {len(results['runs'])} runs, scenario {results['scenario']['scenario'].get('name')}")
    header = (f"{'run':<34} {'status':<10} {'aggregate GB/s':<20} {'per-copy p50 GB/s':<20} "
              f"{'gap p50 us':<18} {'gap p90 us':<18} {'hand-off rate':<16}")
    print(header)
    for label, runs in groups.items():
        figures = [run_figures(r) for r in runs if r["status"] == "ok"]
        statuses = sorted({r["status"] for r in runs})
        col = lambda key, scale, fmt: median_range([f[key] for f in figures], scale, fmt)
        print(f"{label:<34} {','.join(statuses):<10} {col('aggregate', 1e-9, '{:.2f}'):<20} "
              f"{col('per_copy', 1e-9, '{:.2f}'):<20} {col('gap_p50', 1e-3, '{:.1f}'):<18} "
              f"{col('gap_p90', 1e-3, '{:.1f}'):<18} {col('handoff', 1, '{:.2f}'):<16}")
    print()
    for label, runs in groups.items():
        notes = []
        for r in runs:
            for n in r.get("notes", []):
                if ("python work" in n or "no GIL" in n or "sub-interpreters of" in n or
                        n.startswith("skipped")) and n not in notes:
                    notes.append(n)
        for n in notes:
            print(f"{label}: {n}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tools/interpreter-summary.py RESULTS.json")
    main(sys.argv[1])
