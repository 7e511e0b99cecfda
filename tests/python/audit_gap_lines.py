"""What a run's --full section must say of its gaps taken apart ([threads] gap_stages and
gap_counters), derived from the run's raw records alone, as docs/reading-reports.md defines it
("Full", the gap stages and gap counters lines): the lines before the report wraps them.
No xferlab code or analysis is read. Standard library only.

    gap_lines(raw_run) -> [line, ...]   (none for a run that took no gap apart)
"""

STAMPS = [("attached", "attached_ns"), ("python", "python_ns"), ("entry", "entry_ns")]
STAGE_ORDER = ["return>attached", "attached>python", "attached>entry", "python>entry",
               "entry>start", "return>python", "return>entry", "attached>start", "python>start"]
COUNTERS = ["on_cpu_ns", "runqueue_ns", "voluntary_switches", "involuntary_switches",
            "migrations", "page_faults", "instructions", "cycles", "l1d_misses", "llc_misses",
            "itlb_misses", "dtlb_misses"]
TIMES = {"on_cpu_ns", "runqueue_ns"}


def percentile(sorted_values, p):
    """Linear interpolation between closest ranks (numpy's default)."""
    h = (len(sorted_values) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def duration(ns):
    """A duration as the report prints one."""
    a = abs(ns)
    if a < 1e3:
        return f"{ns:.0f} ns"
    if a < 1e6:
        return f"{ns / 1e3:.3g} us"
    if a < 1e9:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e9:.3g} s"


def gaps(raw_run):
    """(record, previous return) for each gap before a measured copy: a worker's records in
    the order of their starts, from its second on."""
    by_worker = {}
    for r in raw_run.get("records", []):
        by_worker.setdefault(r["worker"], []).append(r)
    out = []
    for records in by_worker.values():
        records = sorted(records, key=lambda r: r["host_start_ns"])  # stable, as the docs say
        for prev, r in zip(records, records[1:]):
            if not r.get("warmup") and not r.get("failed") and r.get("gap"):
                out.append((r, prev["host_end_ns"]))
    return out


def figures(values):
    v = sorted(values)
    return len(v), percentile(v, 0.5), percentile(v, 0.9), sum(1 for x in v if x > 0)


def stage_line(taken):
    stages = {}
    staged = 0
    for r, previous_end in taken:
        gap = r["gap"]
        stamps = [("return", previous_end)] + [(n, gap[k]) for n, k in STAMPS if k in gap]
        if len(stamps) == 1:
            continue
        staged += 1
        stamps.append(("start", r["host_start_ns"]))
        for (a, ta), (b, tb) in zip(stamps, stamps[1:]):
            stages.setdefault(f"{a}>{b}", []).append(tb - ta)
    if not staged:
        return None
    parts = []
    for name in STAGE_ORDER:
        if name in stages:
            _, p50, p90, _ = figures(stages[name])
            parts.append(f"{name.replace('>', ' to ')} {duration(p50)} ({duration(p90)})")
    return f"gap stages over {staged} gaps, p50 (p90): " + "; ".join(parts)


def counter_line(taken):
    counted = [r["gap"]["counters"] for r, _ in taken if r["gap"].get("counters")]
    if not counted:
        return None
    parts = []
    for name in COUNTERS:
        values = [c[name] for c in counted if name in c]
        if not values:
            continue
        n, p50, p90, nonzero = figures(values)
        if name in TIMES:
            parts.append(f"{name} p50 {duration(p50)} (p90 {duration(p90)})")
        elif p90 < 1:
            parts.append(f"{name} in {nonzero} of {n} gaps")
        else:
            parts.append(f"{name} p50 {p50:.0f} (p90 {p90:.0f}; in {nonzero} of {n} gaps)")
    return f"gap counters over {len(counted)} gaps: " + "; ".join(parts)


def gap_lines(raw_run):
    taken = gaps(raw_run)
    return [line for line in (stage_line(taken), counter_line(taken)) if line]


def printed_gap_lines(section):
    """The gap lines of one printed 'Run N:' section (its lines), unwrapped."""
    out, current = [], None
    for line in section:
        if line.startswith("  gap stages over ") or line.startswith("  gap counters over "):
            current = [line.strip()]
            out.append(current)
        elif current is not None and line.startswith("    "):
            current.append(line.strip())
        else:
            current = None
    return [" ".join(parts) for parts in out]
