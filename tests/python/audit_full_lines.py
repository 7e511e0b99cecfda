"""What each detail line of --full must say of a run, from the audit's facts of its records
(audit_facts.py): the copies line, the workers' rows, each device's hand-off line, the
device-timed figures, each device's concurrency, the staging helpers' lines. Each is a Found of
audit_findings.py (a shape with claims and figures), held against the printed line with
hold(). Definitions: docs/reading-reports.md, "The numbers, and how each is computed" and
"Full". Standard library only.
"""

import dataclasses

from audit_findings import Found
from audit_stats import mean_concurrency, median, peak, percentile


def plural(n, word, suffix="s"):
    return f"{n} {word}" + ("" if n == 1 else suffix)


def size_text(n):
    """A copy's size: an exact binary unit where one divides it, else two decimals."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u, v = 0, n
    while u < 4 and v >= 1024 and v % 1024 == 0:
        v //= 1024
        u += 1
    if v < 1024 or u == 4:
        return f"{v} {units[u]}"
    d, u = float(n), 0
    while u < 4 and d >= 1024:
        d /= 1024
        u += 1
    return f"{d:.2f} {units[u]}"


def thread_count(run):
    """settings.threads.count (the run's `threads` where an older file's settings lack it)."""
    count = (run.settings.get("threads") or {}).get("count")
    return run.threads if count is None else count


def launcher_of(run):
    return run.settings.get("launcher") or run.launcher


def title_of(run):
    backend = run.raw.get("backend") or "?"
    launcher = launcher_of(run)
    n = thread_count(run)
    return (f"Run {run.index}: {run.label} ({launcher}, {backend} backend, "
            f"{plural(n, 'thread')}, {run.status})")


@dataclasses.dataclass
class WorkerRow:
    worker: int
    tid: int
    device: int
    copies: int
    bandwidths: list        # host-timed per-copy B/s (copies with a positive duration)
    device_p50: float       # None: no device-timed copy with a length
    rate: float             # bytes / its own window
    share: float
    gaps: list
    run_length: float       # None: none on its device


def worker_rows(run):
    rows = []
    for w in run.workers:
        rs = run.copies_by_worker.get(w, [])
        device_bw = [r.bytes * 1e9 / (r.de - r.ds) for r in rs if r.timed and r.de > r.ds]
        length = run.run_length(rs[0].device, w)[0] if rs and rs[0].device in run.handoffs \
            else None
        rows.append(WorkerRow(
            worker=w, tid=rs[0].tid if rs else 0, device=rs[0].device if rs else -1,
            copies=len(rs), bandwidths=[r.bytes * 1e9 / (r.he - r.hs) for r in rs if r.he > r.hs],
            device_p50=median(device_bw) if device_bw else None, rate=run.worker_rates[w],
            share=0.0, gaps=run.gaps_by_worker.get(w, []), run_length=length))
    total = sum(r.rate for r in rows)
    for r in rows:
        r.share = r.rate / total if total > 0 else 0.0
    return rows


def copies_line(run, rows):
    """'N copies x SIZE (+W warm-up)[, K per worker,] in T[ on device D]; copy time p50 P[; gap
    p50 G (p90 H)]; host peak K'."""
    f = Found("copies line").say("{copies} copies x {size} (+{warmups} warm-up)").figure(
        "copies", run.copies, "int").claim("size", size_text(
            (run.settings.get("transfer") or {}).get("bytes", 0))).figure(
        "warmups", sum(1 for r in run.records if r.warmup and not r.failed), "int")
    counts = {r.copies for r in rows}
    if len(counts) == 1 and len(rows) > 1:
        f.say(", {each} per worker,").figure("each", counts.pop(), "int")
    f.say(" in {window}").figure("window", run.window_ns, "duration")
    devices = {r.device for r in rows if r.copies}     # a worker without copies was on none
    if len(devices) == 1:
        d = devices.pop()
        f.say(" on {where}").claim("where", f"device {d}" if d >= 0 else "the host")
    f.say("; copy time p50 {p50}").figure("p50", run.call_p50, "duration")
    if run.gaps and len(rows) > 1:
        f.say("; gap p50 {gap50} (p90 {gap90})").figure(
            "gap50", percentile(run.gaps, 0.5), "duration").figure(
            "gap90", percentile(run.gaps, 0.9), "duration")
    return f.say("; host peak {peak}").figure("peak", peak([r.call for r in run.measured]), "int")


def handoff_lines(run):
    """Each device's sequence with 2+ workers: rate, mean run length, clock, copies."""
    out = {}
    for d, h in run.handoffs.items():
        if len(h.workers) < 2:
            continue
        out[d] = (Found("hand-off line").say(
            "{where}: hand-off rate {rate}, mean run length {length} ({clock} clock, {copies} "
            "copies + {warmups} warm-up)").claim("where", f"device {d}" if d >= 0 else "host")
            .figure("rate", h.rate, "f2").figure("length", h.mean_run_length, "f1")
            .claim("clock", "device" if h.device_clock else "host")
            .figure("copies", h.copies, "int").figure("warmups", h.warmup_copies, "int"))
    return out


def device_timed_line(run):
    bw = [r.bytes * 1e9 / (r.de - r.ds) for r in run.timed_measured if r.de > r.ds]
    if not bw:
        return None
    waits = [r.ds - r.hs for r in run.timed_measured]
    return (Found("device-timed line").say(
        "device-timed per-copy p50 (p10-p90): {p50} ({p10}-{p90}) GB/s; call start to device "
        "start p50 {wait50} (p90 {wait90})").figure("p50", percentile(bw, 0.5), "gb")
        .figure("p10", percentile(bw, 0.1), "gb").figure("p90", percentile(bw, 0.9), "gb")
        .figure("wait50", percentile(waits, 0.5), "duration")
        .figure("wait90", percentile(waits, 0.9), "duration"))


def device_lines(run):
    out = {}
    for d in sorted({r.device for r in run.timed_measured}):
        mine = [r.transfer for r in run.timed_measured if r.device == d]
        workers = len({r.worker for r in run.timed_measured if r.device == d})
        out[d] = (Found("device line").say(
            "device {device}: {workers} worker" + ("" if workers == 1 else "s") +
            ", {copies} copies, device-side conc. {conc} (peak {peak})").claim("device", str(d))
            .figure("workers", workers, "int").figure("copies", len(mine), "int")
            .figure("conc", mean_concurrency(mine), "f2").figure("peak", peak(mine), "int"))
    return out


def helper_lines(run):
    """One line per staging engine (helpers of one launcher name with work): helpers, chunks and
    where their busy time went (each helper's busy spans, at least the time its work accounts
    for)."""
    engines = {}
    for h in run.raw.get("helper_threads") or []:
        work = h.get("work") or {}
        if not work.get("chunks"):
            continue
        e = engines.setdefault(h.get("launcher", ""), {"helpers": 0, "pids": set(), "busy": 0,
                                                       "chunks": 0, "copied_bytes": 0,
                                                       "copy_ns": 0, "start_ns": 0,
                                                       "wait_ns": 0})
        e["helpers"] += 1
        e["pids"].add(h.get("pid"))
        spans = sum(end - start for start, end in h.get("busy") or [])
        e["busy"] += max(spans, work["copy_ns"] + work["start_ns"] + work["wait_ns"])
        for key in ("chunks", "copied_bytes", "copy_ns", "start_ns", "wait_ns"):
            e[key] += work.get(key, 0)
    out = []
    for name, e in engines.items():
        busy = max(e["busy"], 1)
        f = Found("helpers line").say("{name}: {helpers} helper" + (
            "" if e["helpers"] == 1 else "s")).claim("name", name).figure(
            "helpers", e["helpers"], "int")
        if len(e["pids"]) > 1:
            f.say(" in {processes} processes (an engine each)").figure(
                "processes", len(e["pids"]), "int")
        f.say(", {chunks} chunks; of their busy time ").figure("chunks", e["chunks"], "int")
        if e["copied_bytes"] > 0:
            f.say("copying {copying} ({rate} per helper while copying), ").figure(
                "copying", e["copy_ns"] / busy, "percent").figure(
                "rate", e["copied_bytes"] * 1e9 / max(e["copy_ns"], 1), "gbps")
        else:
            f.say("no host copies (page-locked memory, DMA'd in place), ")
        other = max(e["busy"] - e["copy_ns"] - e["start_ns"] - e["wait_ns"], 0)
        out.append(f.say("starting DMAs {start}, waiting for DMAs {wait}, taking work {other}")
                   .figure("start", e["start_ns"] / busy, "percent")
                   .figure("wait", e["wait_ns"] / busy, "percent")
                   .figure("other", other / busy, "percent"))
    return out


def new_label(name):
    return {"label": name, "blocks": 0, "warmup": 0, "failed": 0, "traced": 0, "calls": 0,
            "gil_held": 0, "with_copy": 0, "early": 0, "overhang": 0, "copies": 0, "kinds": {}}


def timed_block_lines(run):
    """A payload's w.timed() blocks (records with a `source`), per label: blocks, warm-ups,
    failures, the device copies CUPTI joined to them and their kinds, blocks that issued none or
    returned before their copies ended, the GIL in their memcpy calls; then whether the payload
    verified their bytes."""
    labels = [new_label(name) for name in run.raw.get("copy_sources") or []]
    by_tag, workers = {}, set()
    for raw in run.raw.get("records") or []:
        source = raw.get("source", 0)
        if not source:
            continue
        while len(labels) < source:
            labels.append(new_label("(unlabelled)"))
        s = labels[source - 1]
        workers.add(raw.get("worker", 0))
        s["blocks"] += 1
        s["warmup"] += bool(raw.get("warmup"))
        s["failed"] += bool(raw.get("failed"))
        if raw.get("device_calls", -1) >= 0:
            s["traced"] += 1
            s["calls"] += raw["device_calls"]
            s["gil_held"] += raw.get("gil_held_calls", 0)
            if raw.get("device_timing") == "cupti":
                s["with_copy"] += 1
                overhang = raw.get("device_end_ns", -1) - raw["host_end_ns"]
                if overhang > 0:
                    s["early"] += 1
                    s["overhang"] = max(s["overhang"], overhang)
        if raw.get("correlation_id"):
            by_tag[raw["correlation_id"]] = s
    for c in run.raw.get("device_copies") or []:
        s = by_tag.get(c.get("correlation_id"))
        if s is not None:
            s["copies"] += 1
            kind = f"{c.get('kind')} {c.get('src')}->{c.get('dst')}"
            s["kinds"][kind] = s["kinds"].get(kind, 0) + 1
    out = [block_line(s) for s in labels if s["blocks"]]
    if workers:
        verified = {w: how for w, how in (run.raw.get("payload_verified") or {}).items()
                    if int(w) in workers}
        if not verified:
            out.append(Found("timed blocks").say(
                "timed blocks' bytes not verified: the payload did not check them (w.verified)"))
        else:
            out.append(Found("timed blocks").say(
                "timed blocks' bytes verified by the payload for {verified} of {workers} workers "
                "({how})").figure("verified", len(verified), "int").figure(
                "workers", len(workers), "int").claim("how", "; ".join(sorted(set(
                    verified.values())))))
    return out


def block_line(s):
    f = Found("timed blocks").say("timed blocks '{label}': {blocks} ({warmup} warm-up").claim(
        "label", s["label"]).figure("blocks", s["blocks"], "int").figure(
        "warmup", s["warmup"], "int")
    if s["failed"]:
        f.say(", {failed} failed").figure("failed", s["failed"], "int")
    f.say(")")
    if not s["traced"]:
        return f.say("; device copies not traced here (no CUPTI tracer: host backend)")
    f.say("; {copies} device cop" + ("y" if s["copies"] == 1 else "ies") + " joined").figure(
        "copies", s["copies"], "int")
    if s["kinds"]:
        f.say(" ({kinds})").claim("kinds", ", ".join(
            f"{n} {kind}" for kind, n in sorted(s["kinds"].items())))
    if s["with_copy"] < s["traced"]:
        f.say("; {none} of {traced} blocks issued no device copy").figure(
            "none", s["traced"] - s["with_copy"], "int").figure("traced", s["traced"], "int")
    if s["early"]:
        f.say("; {early} of {with_copy} blocks returned before their device copies ended (by up "
              "to {overhang}): they time the call, not the bytes' arrival").figure(
            "early", s["early"], "int").figure("with_copy", s["with_copy"], "int").figure(
            "overhang", s["overhang"], "duration")
    if s["calls"]:
        if s["gil_held"] == 0:
            f.say("; GIL released in all {calls} memcpy calls")
        elif s["gil_held"] == s["calls"]:
            f.say("; GIL held in all {calls} memcpy calls (the framework keeps it across its "
                  "copy)")
        else:
            f.say("; GIL held in {held} of {calls} memcpy calls").figure(
                "held", s["gil_held"], "int")
        f.figure("calls", s["calls"], "int")
    return f


# docs/reading-reports.md, "The terminal table": where each device's copies' host pages were.

def nearest_nodes(results):
    """{device: NUMA node} from results.json's devices (a watched program's account first)."""
    out = {}
    devices = results.get("devices") or {}
    for backend in sorted(devices, key=lambda b: b != "watched"):
        for d in (devices[backend] or {}).get("devices") or []:
            if isinstance(d, dict) and isinstance(d.get("numa_node"), int) and \
                    d["numa_node"] >= 0 and isinstance(d.get("index"), int):
                out.setdefault(d["index"], d["numa_node"])
    return out


def host_side(r):
    """A watched copy's host memory kind: the destination of a copy from a device, the source of
    one to a device or host ("" for other kinds: report/analysis/watched.cpp's host_kind)."""
    if r.copy_kind in ("DtoH", "AtoH"):
        return r.dst_kind
    return r.src_kind if r.copy_kind in ("HtoD", "HtoA", "HtoH") else ""


def counted_for_nodes(r):
    """A measured copy of xferlab's own, or a watched copy whose host side is pageable."""
    if r.warmup or r.failed or r.source:
        return False
    return not r.copy_kind or host_side(r) == "pageable"


def host_node_lines(run, results):
    """{device: the line} where any counted copy had its host pages sampled."""
    by_device = {}
    for r in run.records:
        if counted_for_nodes(r):
            by_device.setdefault(r.device, []).append(r)
    if not any(r.host_node >= 0 for rs in by_device.values() for r in rs):
        return {}
    nearest = nearest_nodes(results)
    watched = any(r.copy_kind for r in run.records)
    out = {}
    for d, rs in sorted(by_device.items()):
        sampled = [r for r in rs if r.host_node >= 0]
        nodes = {}
        for r in sampled:
            nodes[r.host_node] = nodes.get(r.host_node, 0) + 1
        if d < 0:
            where = "the host backend"
        else:
            where = f"device {d} (" + (f"nearest NUMA node {nearest[d]}" if d in nearest
                                       else "nearest NUMA node not known") + ")"
        f = Found("where the bytes live").say(
            "where the bytes live, {where}: {copies} " +
            ("pageable copies" if watched else "copies") + ", {sampled} with sampled host pages"
        ).claim("where", where).figure("copies", len(rs), "int").figure(
            "sampled", len(sampled), "int")
        if nodes:
            f.say("; the node most of a copy's pages were on: {nodes}").claim(
                "nodes", ", ".join(f"node {n} for {k}" for n, k in sorted(nodes.items())))
        out[d] = f
    return out
