#!/usr/bin/env python3
"""What the gaps of a results.json were made of ([threads] gap_stages and gap_counters), per run
of the plan (its trials together), from the records alone: the gap p50, each stage's p50 and the
counters, each figure the median over the trials with the trials' range. The tables of
docs/results/gap-after-a-call.md are printed by it.

    tools/gap-summary.py RESULTS.json [--markdown]

A gap is a call's start minus the same worker's previous return, counted before measured copies
(docs/reading-reports.md); its stages run between the consecutive stamps it has: return,
attached (back in the interpreter), python (the payload's xferlab.gap_mark()), entry (the next
call entered xferlab), start. Percentiles interpolate between closest ranks (numpy's default).
Counters: on-CPU and runqueue time as p50, switches, migrations and page faults as the share of
gaps that had any.
"""
import json
import lzma
import statistics
import sys

STAMPS = ["attached_ns", "python_ns", "entry_ns"]


def percentile(values, p):
    v = sorted(values)
    if not v:
        return None
    h = (len(v) - 1) * p
    lo = int(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])


def gaps_of(run):
    """(gap ns, stamps in order as [(name, t)], counters) per gap before a measured copy."""
    by_worker = {}
    for r in run.get("records", []):
        by_worker.setdefault(r["worker"], []).append(r)
    out = []
    for records in by_worker.values():
        records.sort(key=lambda r: r["host_start_ns"])
        for prev, r in zip(records, records[1:]):
            if r.get("warmup") or r.get("failed"):
                continue
            gap = r.get("gap", {})
            stamps = [("return", prev["host_end_ns"])]
            stamps += [(k[:-3], gap[k]) for k in STAMPS if k in gap]
            stamps.append(("start", r["host_start_ns"]))
            out.append((r["host_start_ns"] - prev["host_end_ns"], stamps, gap.get("counters", {})))
    return out


def trial_figures(run):
    gaps = gaps_of(run)
    if not gaps:
        return None
    f = {"gap": percentile([g for g, _, _ in gaps], 0.5)}
    stages = {}
    for _, stamps, _ in gaps:
        if len(stamps) > 2:
            for (a, ta), (b, tb) in zip(stamps, stamps[1:]):
                stages.setdefault(f"{a}>{b}", []).append(tb - ta)
    for name, values in stages.items():
        f[name] = percentile(values, 0.5)
    counted = [c for _, _, c in gaps if c]
    for name in ("on_cpu_ns", "runqueue_ns"):
        values = [c[name] for c in counted if name in c]
        if values:
            f[name] = percentile(values, 0.5)
    for name in ("voluntary_switches", "involuntary_switches", "migrations", "page_faults"):
        values = [c[name] for c in counted if name in c]
        if values:
            f[name] = sum(1 for v in values if v > 0) / len(values)
    return f


def us(v):
    return f"{v / 1e3:.2f}"


def share(v):
    return f"{100 * v:.0f}%"


def cell(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    text = fmt(statistics.median(values))
    if len(values) > 1:
        text += f" ({fmt(min(values))}-{fmt(max(values))})"
    return text


COLUMNS = [("gap", us), ("return>attached", us), ("attached>python", us), ("python>entry", us),
           ("attached>entry", us), ("entry>start", us), ("on_cpu_ns", us), ("runqueue_ns", us),
           ("voluntary_switches", share), ("involuntary_switches", share),
           ("migrations", share), ("page_faults", share)]


def main(argv):
    path = argv[1]
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        results = json.load(f)
    plan = {}
    for run in results["runs"]:
        label = run.get("base_label") or run["label"]
        figures = trial_figures(run)
        if figures is not None:
            plan.setdefault(label, []).append(figures)
    used = [c for c in COLUMNS if any(c[0] in f for t in plan.values() for f in t)]
    head = ["run (trials)"] + [name.replace(">", " to ").replace("_ns", "") for name, _ in used]
    rows = [[f"{label} ({len(trials)})"] + [cell([t.get(n) for t in trials], fmt) for n, fmt in used]
            for label, trials in plan.items()]
    print("times in us: median over the trials of each trial's p50 (range); counts: the share "
          "of gaps with any")
    if "--markdown" in argv:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
        for row in [head] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
    main(sys.argv)
