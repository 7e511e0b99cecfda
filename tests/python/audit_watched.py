"""A watched program's block of the report ("Watched program (run N)", xferlab watch), held
against the audit's own reading of the run's records (report/analysis/watched.cpp and
report/render/watch_section.cpp say what each figure is): the copies by kind and size, the
pageable copies' share of the calls, the calls' wait for the device, the threads table and each
reference run xferlab timed afterwards, and where the pageable copies' host pages were. Standard
library only.
"""

import re

import audit_report as rep
from audit_findings import Found, hold
from audit_full_lines import host_node_lines, host_side, size_text
from audit_rules import watched_references
from audit_stats import covered, percentile, union

HEADING = re.compile(r"^Watched program \(run (\d+)\)$")
KiB, MiB = 1024, 1024 * 1024
CLASS_BOUNDS = [64 * KiB, MiB, 16 * MiB, 256 * MiB]
CLASS_NAMES = ["< 64 KiB", "64 KiB - 1 MiB", "1 MiB - 16 MiB", "16 MiB - 256 MiB", ">= 256 MiB"]
GROUP_COLUMNS = [("kind", "l"), ("size", "l"), ("copies", "r"), ("bytes", "r"),
                 ("in calls", "r"), ("on device", "r"), ("GB/s p50", "r")]
THREAD_COLUMNS = [("worker", "r"), ("thread", "l"), ("pid", "r"), ("tid", "r"), ("copies", "r"),
                  ("in calls", "r"), ("pageable", "r"), ("waited", "r"), ("another's on", "r"),
                  ("gap p50", "r")]
THREADS_INTRO = ("threads (waited: call start to device start, summed; another's on: the share "
                 "of that wait while another transfer was on the device; gap: a copy's return "
                 "to the thread's next call)")
TIMED_AFTER = ("(timed after the program ended, one trial each: how far apart they are is not "
               "tested)")
NOT_CALIBRATED = ("xferlab.copy was not measured for these sizes here (xferlab watch "
                  "--calibrate measures it)")


def size_class(n):
    return next((i for i, bound in enumerate(CLASS_BOUNDS) if n < bound), len(CLASS_BOUNDS))


def device_ns(r):
    return r.de - r.ds if r.timed else 0


def figure(value, kind):
    return Found("watched").say("{v}").figure("v", value, kind)


def share(part, whole):
    return figure(part / whole, "percent") if whole > 0 else None


class Lines:
    """The block's lines as logical lines: a 2-space line with its deeper continuations, and a
    table (its header and rows) as one entry."""

    def __init__(self, block):
        self.lines, self.at = block[1:], 0

    def next_text(self):
        if self.at >= len(self.lines):
            return None
        out = [self.lines[self.at].strip()]
        self.at += 1
        while (self.at < len(self.lines) and rep.indent_of(self.lines[self.at]) >= 4
               and not self.table_header(self.lines[self.at])):
            out.append(self.lines[self.at].strip())
            self.at += 1
        return " ".join(out)

    @staticmethod
    def table_header(line):
        return line.startswith("    kind ") or line.startswith("    worker ")

    def next_table(self, columns, key):
        if self.at >= len(self.lines) or not self.table_header(self.lines[self.at]):
            return None
        start = self.at
        self.at += 1
        while self.at < len(self.lines) and rep.indent_of(self.lines[self.at]) >= 4:
            self.at += 1
        return rep.table([""] + self.lines[start:self.at], columns, key)


class Block:
    """One watched run's block checked line by line; every problem named with its line."""

    def __init__(self, audit, view, run):
        self.audit, self.view, self.run = audit, view, run
        self.where = f"watched program (run {run.index})"

    def problem(self, printed, why):
        self.audit.add(self.where, "watched", printed, self.view, why)

    def cell(self, printed, want, what):
        """A printed cell against a figure (a Found), a text, or None for '-'."""
        if want is None or isinstance(want, str):
            expected = "-" if want is None else want
            if printed != expected:
                self.problem(f"{what}: {printed}", f"its own is {expected}")
            return
        h = hold(printed or "", want)
        if not h.matched or h.problems:
            self.problem(f"{what}: {printed}", "; ".join(h.problems) or "not this figure")

    def line(self, printed, shape, fields, what):
        found = Found("watched").say(shape)
        for name, (value, kind) in fields.items():
            found.figure(name, value, kind)
        if printed is None:
            self.problem(what, "not printed")
            return
        h = hold(printed, found)
        if not h.matched or h.problems:
            self.problem(printed, "; ".join(h.problems))

    def text(self, printed, expected):
        if printed != expected:
            self.problem(printed or "(nothing)", f"its own says '{expected}'")


def check_groups(b, rows, records):
    groups = {}
    for r in records:
        g = groups.setdefault((f"{r.copy_kind} {r.src_kind} -> {r.dst_kind}",
                               size_class(r.bytes)), {"copies": 0, "bytes": 0, "call": 0,
                                                      "device": 0, "rates": []})
        g["copies"] += 1
        g["bytes"] += r.bytes
        g["call"] += r.he - r.hs
        g["device"] += device_ns(r)
        if device_ns(r) > 0:
            g["rates"].append(r.bytes * 1e9 / device_ns(r))
    if rows is None or len(rows) != len(groups):
        b.problem("copies by kind and size", f"{len(groups)} rows: one per kind and size")
        return
    for row, ((kind, cls), g) in zip(rows, sorted(groups.items())):
        what = f"{kind}, {CLASS_NAMES[cls]}"
        b.cell(row.get("kind"), kind, f"{what}: kind")
        b.cell(row.get("size"), CLASS_NAMES[cls], f"{what}: size")
        b.cell(row.get("copies"), str(g["copies"]), f"{what}: copies")
        b.cell(row.get("bytes"), size_text(g["bytes"]), f"{what}: bytes")
        b.cell(row.get("in calls"), figure(g["call"], "duration"), f"{what}: in calls")
        b.cell(row.get("on device"), figure(g["device"], "duration"), f"{what}: on device")
        p50 = percentile(g["rates"], 0.5) if g["rates"] else 0
        b.cell(row.get("GB/s p50"), figure(p50, "gb") if p50 > 0 else None, f"{what}: GB/s p50")


def thread_figures(run):
    """Per worker: copies, call, pageable and wait times, the wait while another transfer was on
    the device (its device's transfers' union), as watched_stats sums them."""
    busy = {}
    for r in run.records:
        if r.timed:
            busy.setdefault(r.device, []).append((r.ds, r.de))
    busy = {d: union(iv) for d, iv in busy.items()}
    out = {}
    for r in run.records:
        t = out.setdefault(r.worker, {"pid": r.pid, "tid": r.tid, "copies": 0, "call": 0,
                                      "pageable": 0, "wait": 0, "busy": 0})
        t["pid"], t["tid"] = r.pid, r.tid
        t["copies"] += 1
        t["call"] += r.he - r.hs
        if host_side(r) == "pageable":
            t["pageable"] += r.he - r.hs
        if r.timed and r.ds > r.hs:
            t["wait"] += r.ds - r.hs
            t["busy"] += covered(busy.get(r.device, []), (r.hs, r.ds))
    return dict(sorted(out.items()))


def check_threads(b, rows, run, threads):
    names = {t.get("worker"): t.get("name", "") for t in run.raw.get("thread_infos") or []}
    if rows is None or len(rows) != len(threads):
        b.problem("threads", f"{len(threads)} rows: one per worker")
        return
    for row, (w, t) in zip(rows, threads.items()):
        what = f"worker {w}"
        b.cell(row.get("worker"), str(w), f"{what}: worker")
        b.cell(row.get("thread"), names.get(w) or "-", f"{what}: thread")
        b.cell(row.get("pid"), str(t["pid"]), f"{what}: pid")
        b.cell(row.get("tid"), str(t["tid"]), f"{what}: tid")
        b.cell(row.get("copies"), str(t["copies"]), f"{what}: copies")
        b.cell(row.get("in calls"), figure(t["call"], "duration"), f"{what}: in calls")
        b.cell(row.get("pageable"), share(t["pageable"], t["call"]), f"{what}: pageable")
        b.cell(row.get("waited"), figure(t["wait"], "duration"), f"{what}: waited")
        b.cell(row.get("another's on"), share(t["busy"], t["wait"]), f"{what}: another's on")
        gap = run.gap_p50(w) if w in run.gaps_by_worker else None
        b.cell(row.get("gap p50"), figure(gap, "duration") if gap is not None else None,
               f"{what}: gap p50")


def check_references(b, lines, plan, run):
    refs = watched_references(plan, run)
    for ref, calibrate, device, direction, transfer, mine in refs:
        size = size_text(transfer.get("bytes", 0))
        threads = (ref.settings.get("threads") or {}).get("count", ref.threads)
        what = (f"xferlab.copy of {size} from pageable memory with {threads} thread"
                f"{'' if threads == 1 else 's'}" if calibrate else f"a page-locked copy of {size}")
        shape = f"device {device} {direction}: {what} ran at {{agg}} (run {ref.index}); "
        fields = {"agg": (ref.aggregate, "gbps")}
        if mine:
            span = max(r.de for r in mine) - min(r.ds for r in mine)
            shape += (f"the program's {len(mine)} copies there: {{p50}} per copy (p50, "
                      f"device-timed), {{window}} over the device's busy window")
            fields["p50"] = (percentile([r.bytes * 1e9 / (r.de - r.ds) for r in mine], 0.5),
                             "gbps")
            fields["window"] = (sum(r.bytes for r in mine) * 1e9 / span if span > 0 else 0,
                                "gbps")
        else:
            shape += "the program made no device-timed copy there"
        b.line(lines.next_text(), shape, fields, f"reference run {ref.index}")
    if refs:
        b.text(lines.next_text(), TIMED_AFTER)
    if not any(calibrate for _, calibrate, *_ in refs):
        b.text(lines.next_text(), NOT_CALIBRATED)


def check_block(audit, block, view):
    index = int(HEADING.match(block[0]).group(1))
    run = audit.plan.run(index)
    b = Block(audit, view, run)
    if run is None or run.launcher != "watched":
        b.problem(block[0], "no watched run of that number")
        return
    lines = Lines(block)
    if not run.records:
        b.text(lines.next_text(), "no copy was recorded")
        return
    b.text(lines.next_text(), "copies by kind and size (GB/s: per copy, device-timed)")
    check_groups(b, lines.next_table(GROUP_COLUMNS, "kind"), run.records)
    threads = thread_figures(run)
    call = sum(t["call"] for t in threads.values())
    pageable = sum(t["pageable"] for t in threads.values())
    wait = sum(t["wait"] for t in threads.values())
    busy = sum(t["busy"] for t in threads.values())
    printed = lines.next_text()
    if call > 0:
        b.line(printed, "pageable copies: {pageable} of the {call} the copy calls took ({share})",
               {"pageable": (pageable, "duration"), "call": (call, "duration"),
                "share": (pageable / call, "percent")}, "pageable copies")
    else:
        b.problem(printed or "pageable copies", "the calls took no time: nothing to share")
    printed = lines.next_text()
    if wait > 0:
        b.line(printed, "waiting: the calls waited {wait} in all before the device started their "
               "copies, {busy} of it ({share}) while another transfer was on the device",
               {"wait": (wait, "duration"), "busy": (busy, "duration"),
                "share": (busy / wait, "percent")}, "waiting")
    else:
        b.text(printed, "waiting: the calls waited 0 ns in all before the device started their "
               "copies, 0 ns of it (-) while another transfer was on the device")
    b.text(lines.next_text(), THREADS_INTRO)
    check_threads(b, lines.next_table(THREAD_COLUMNS, "worker"), run, threads)
    # Where the pageable copies' host pages were (the lines a run's --full section has too).
    for found in host_node_lines(run, audit.plan.results).values():
        b.cell(lines.next_text(), found, "where the bytes live")
    check_references(b, lines, audit.plan, run)
    rest = lines.next_text()
    if rest is not None:
        b.problem(rest, "a line the audit does not read")


def check_watched(audit, text, view):
    for block in rep.paragraphs(text):
        if HEADING.match(block[0]):
            check_block(audit, block, view)
