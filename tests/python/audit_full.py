"""--full's detail, held against the audit's own reading of the records: each run's section
(its title line, the copies line, one row per worker, each device's hand-off line, the
device-timed figures and each device's concurrency, the staging helpers' lines, the timed
blocks' lines) and each run's payload and thread attributes wherever they are printed for it
(its section, or a group of "Said of several runs" that lists it), the latter against the run
its threads were compared with. Every line of a run's section is read (audit_full_read.py): a
line of no known shape is a finding, so no figure is printed unaudited. The sentences, notes,
errors and the per-copy verdict are audit_explanations.py's and audit_tables.py's. Standard
library only.
"""

import re

import audit_full_lines as lines
from audit_gap_lines import gap_lines
import audit_report as rep
from audit_findings import Field, field_problem, hold, normalized, render_number
from audit_stats import percentile
from audit_full_read import sections, shared_groups
from audit_threads import payload_line, thread_differences

VIEW = "full"


def check_full(audit, text):
    printed = sections(text)
    for run in audit.plan.runs:
        found = printed.get(run.index, [])
        if len(found) != 1:
            audit.add(f"run {run.index}", "run section", f"{len(found)} sections", VIEW,
                      "one 'Run N:' section per run")
            continue
        check_section(audit, run, *found[0])
    for index in printed:
        if audit.plan.run(index) is None:
            audit.add(f"run {index}", "run section", f"Run {index}:", VIEW, "there is no such run")
    check_run_items(audit, text, printed)


# ------------------------------------------------------------------------------------------
# A run's section

def check_line(audit, run, found, printed):
    where = f"run {run.index}"
    if printed is None:
        audit.add(where, found.rule, found.text(), VIEW, "not printed")
        return
    h = hold(printed, found)
    if not h.matched or h.problems:
        audit.add(where, found.rule, printed, VIEW, "; ".join(h.problems))


def check_section(audit, run, title, items):
    where = f"run {run.index}"
    if normalized(title) != normalized(lines.title_of(run)):
        audit.add(where, "run title", title, VIEW, f"its title is '{lines.title_of(run)}'")
    by_kind = {}
    for item in items:
        by_kind.setdefault(item.kind, []).append(item)
    for item in by_kind.pop("unread", []):
        audit.add(where, "run section", item.text or " ".join(item.rows or []), VIEW,
                  "a line of no shape the audit reads")
    rows = lines.worker_rows(run)
    check_once(audit, run, by_kind, "copies", lines.copies_line(run, rows) if run.copies else None)
    check_workers(audit, run, rows, by_kind.get("workers", []), by_kind.get("gaps", []))
    check_keyed(audit, run, by_kind.get("hand-off", []), lines.handoff_lines(run),
                "hand-off line")
    timed = lines.device_timed_line(run)
    check_once(audit, run, by_kind, "device-timed", timed)
    check_keyed(audit, run, by_kind.get("device", []), lines.device_lines(run) if timed else {},
                "device line")
    check_list(audit, run, by_kind.get("helpers", []), lines.helper_lines(run), "helpers line")
    check_list(audit, run, by_kind.get("timed-blocks", []), lines.timed_block_lines(run),
               "timed blocks")
    # The gap taken apart (issue 57): derived by audit_gap_lines from the records, word for word.
    wanted = gap_lines(run.raw)
    printed = [normalized(item.text) for item in by_kind.get("gap-lines", [])]
    if printed != [normalized(w) for w in wanted]:
        audit.add(where, "gap lines", " | ".join(printed) or "(none)", VIEW,
                  "its records give: " + (" | ".join(wanted) or "no gap line"))
    check_keyed(audit, run, by_kind.get("host-nodes", []),
                lines.host_node_lines(run, audit.plan.results), "where the bytes live",
                named=nodes_device_named)


def check_once(audit, run, by_kind, kind, found):
    printed = [item.text for item in by_kind.get(kind, [])]
    if found is None:
        for text in printed:
            audit.add(f"run {run.index}", kind, text, VIEW, "the run has no such figures")
        return
    check_line(audit, run, found, printed[0] if printed else None)
    for text in printed[1:]:
        audit.add(f"run {run.index}", found.rule, text, VIEW, "printed twice")


def device_named(text):
    """The device a line starts with: 'device 3: ...' is 3, 'host: ...' the host backend's -1."""
    m = re.match(r"^device (-?\d+):", text)
    return int(m.group(1)) if m else -1


def nodes_device_named(text):
    """The device of a 'where the bytes live, device 3 (...)' line (-1: the host backend)."""
    m = re.match(r"^where the bytes live, device (-?\d+) ", text)
    return int(m.group(1)) if m else -1


def check_keyed(audit, run, items, wanted, rule, named=None):
    """Lines that name their device, each against that device's own line."""
    seen = set()
    for item in items:
        d = (named or device_named)(item.text)
        if d not in wanted or d in seen:
            audit.add(f"run {run.index}", rule, item.text, VIEW,
                      "printed twice" if d in seen else "no such device in the run's figures")
            continue
        seen.add(d)
        check_line(audit, run, wanted[d], item.text)
    for d, found in wanted.items():
        if d not in seen:
            check_line(audit, run, found, None)


def check_list(audit, run, items, wanted, rule):
    """Lines in the order the audit derives them."""
    for item, found in zip(items, wanted):
        check_line(audit, run, found, item.text)
    for item in items[len(wanted):]:
        audit.add(f"run {run.index}", rule, item.text, VIEW, "the run has no such line")
    for found in wanted[len(items):]:
        check_line(audit, run, found, None)


# ------------------------------------------------------------------------------------------
# The workers' rows

COLUMNS = ("worker", "tid", "device", "copies", "mean GB/s", "min", "max", "dev p50",
           "worker GB/s", "share", "gap p50", "gap p90", "run len", "run length")


def table_rows(item):
    """A workers' table as [{column: cell}], cells right-aligned under their headers."""
    header = item.rows[0]
    names = [c for c in (cell for _, _, cell in rep.cells_of(header))]
    unknown = [n for n in names if n not in COLUMNS]
    return rep.table([None] + item.rows, [(n, "r") for n in names], "worker"), names, unknown


def expected_cells(run, row, columns):
    """{column: (value, kind)} of a worker's row; value None prints '-'."""
    bw = row.bandwidths
    cells = {
        "worker": (str(row.worker), "text"),
        "tid": (str(row.tid) if row.tid else "-", "text"),
        "device": ("-" if not row.copies else str(row.device) if row.device >= 0 else "host",
                   "text"),
        "copies": (str(row.copies), "text"),
        "mean GB/s": (sum(bw) / len(bw) if bw else None, "gb"),
        "min": (min(bw) if bw else None, "gb"),
        "max": (max(bw) if bw else None, "gb"),
        "dev p50": (row.device_p50, "gb"),
        "worker GB/s": (row.rate if row.copies else None, "gb"),
        "share": (row.share, "percent"),
        "gap p50": (percentile(row.gaps, 0.5) if row.gaps else None, "duration"),
        "gap p90": (percentile(row.gaps, 0.9) if row.gaps else None, "duration"),
        "run len": (row.run_length, "f1"),
    }
    cells["run length"] = cells["run len"]
    return {c: cells[c] for c in columns}


def wanted_columns(run, rows, gaps):
    """The workers' table's columns: device and copies only where the workers differ in them,
    dev p50 where the run has device times, the gap columns where it has gaps."""
    out = ["worker", "tid"]
    if len({r.device for r in rows if r.copies}) > 1:
        out.append("device")
    if len({r.copies for r in rows}) > 1:
        out.append("copies")
    out += ["mean GB/s", "min", "max"]
    if lines.device_timed_line(run) is not None:
        out.append("dev p50")
    out += ["worker GB/s", "share"]
    return out + (["gap p50", "gap p90", "run len"] if gaps else [])


def check_workers(audit, run, rows, tables, gap_tables):
    where = f"run {run.index}"
    if not run.copies:
        for item in tables + gap_tables:
            audit.add(where, "workers", item.rows[0], VIEW, "a run without copies has no rows")
        return
    if len(tables) != 1 or len(gap_tables) > 1:
        audit.add(where, "workers", f"{len(tables)} tables", VIEW, "one table of workers")
        return
    has_gaps = bool(run.gaps)
    printed, names, unknown = table_rows(tables[0])
    if gap_tables:          # too wide for one table: the gaps in a table of their own
        gap_rows, gap_names, more = table_rows(gap_tables[0])
        unknown += more
        by_worker = {r.get("worker"): r for r in gap_rows}
        for r in printed:
            r.update({k: v for k, v in by_worker.get(r.get("worker"), {}).items()})
        names += [n for n in gap_names if n != "worker"]
    want = wanted_columns(run, rows, has_gaps)
    got = [n if n != "run length" else "run len" for n in names]
    if unknown or got != want:
        audit.add(where, "workers", tables[0].rows[0], VIEW, f"its columns are {', '.join(want)}")
        return
    if len(printed) != len(rows):
        audit.add(where, "workers", f"{len(printed)} rows", VIEW, f"{len(rows)} planned workers")
    for cells, row in zip(printed, rows):
        for column, (value, kind) in expected_cells(run, row, names).items():
            check_cell(audit, where, row.worker, column, cells.get(column, ""), value, kind)


def check_cell(audit, where, worker, column, printed, value, kind):
    printed = printed.strip()
    label = f"worker {worker}: {column} '{printed}'"
    if kind == "text" or value is None:
        want = "-" if value is None else value
        if printed != want:
            audit.add(where, "workers", label, VIEW, f"its {column} is {want}")
        return
    if printed == "-":
        audit.add(where, "workers", label, VIEW, f"its {column} is {render_number(value, kind)}")
        return
    why = field_problem(Field(column, kind, float(value)), printed)
    if why:
        audit.add(where, "workers", label, VIEW, why)


# ------------------------------------------------------------------------------------------
# Payload and thread attributes, wherever they are printed for a run

def check_run_items(audit, text, printed):
    """Each run's payload line and thread attribute lines: those of its own section and of every
    shared group that lists it, against its own."""
    payloads = {r.index: [] for r in audit.plan.runs}
    threads = {r.index: [] for r in audit.plan.runs}
    for runs, items in shared_groups(text, audit.every):
        for item in items:
            if item.kind == "unread":
                audit.add("said of several runs", "run section", item.text, VIEW,
                          "a line of no shape the audit reads")
        for r in runs:
            collect(payloads, threads, r, items, "these runs" if len(runs) < len(audit.every)
                    else "every run")
    for index, found in printed.items():
        if len(found) == 1:
            collect(payloads, threads, index, found[0][1], "this run")
    for run in audit.plan.runs:
        check_payload(audit, run, payloads.get(run.index, []))
        check_threads(audit, run, threads.get(run.index, []))


def collect(payloads, threads, run, items, whose):
    for item in items:
        if item.kind == "payload":
            payloads.setdefault(run, []).append(item.text)
        elif item.kind == "threads":
            threads.setdefault(run, []).append((item, whose))


def check_payload(audit, run, printed):
    want = payload_line(run.raw)
    where = f"run {run.index}"
    for text in printed:
        if want is None or normalized(text) != normalized(want):
            audit.add(where, "payload", text, VIEW, f"its payload line is {want!r}")
    if want is not None and not printed:
        audit.add(where, "payload", want, VIEW, "not printed")
    if len(printed) > 1:
        audit.add(where, "payload", printed[0], VIEW, "printed twice")


def check_threads(audit, run, printed):
    where = f"run {run.index}"
    cmp = audit.plan.comparison(run)
    want = [] if cmp is None else thread_differences(run.raw, audit.plan.run(cmp.baseline).raw)
    got = []
    for item, whose in printed:
        heading = f"thread attributes, run {item.baseline} vs {whose}:"
        if cmp is None:
            audit.add(where, "thread attributes", heading, VIEW,
                      "the run is compared with no baseline run")
        elif item.baseline != cmp.baseline or not item.text.endswith(f" vs {whose}:"):
            audit.add(where, "thread attributes", item.text, VIEW,
                      f"its threads were compared with run {cmp.baseline}'s")
        got += item.diffs
    for line in got:
        if line not in want:
            audit.add(where, "thread attributes", line, VIEW,
                      "not a difference of its threads" + (
                          f" from run {cmp.baseline}'s" if cmp else ""))
    for line in want:
        if line not in got:
            audit.add(where, "thread attributes", line, VIEW, "not printed")
        elif got.count(line) > 1:
            audit.add(where, "thread attributes", line, VIEW, "printed twice")

