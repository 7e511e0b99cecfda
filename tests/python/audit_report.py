"""Reading a rendered xferlab report (the terminal table, 100 columns wide) back into what it
says: the concise and brief "Why" blocks (each claim with the runs listed under it), the full
report's "Said of several runs" block and each run's section, the Summary, the notes, and the
runs, trials and bandwidth tables. Wrapped lines are joined with one space. Standard library
only.
"""

import dataclasses
import re

WHY_HEADING = "Why (each finding once per run of the plan, with the trials that make it)"
SHARED_HEADING = "Said of several runs (once here, not under each run)"


@dataclasses.dataclass
class Listed:
    """A sentence as printed, with the runs it is listed under (None: the summary)."""
    view: str
    runs: list
    sentence: str
    header: str = ""        # the concise block's header as printed ("runs 2, 4 (as run 'x' ...)")
    labels: list = None     # the concise head's labels: [(label, trials saying it or None,
                            # trials of the label or None)]; None: every run / not given


def paragraphs(text):
    """The report's blocks: runs of lines between blank lines."""
    out, block = [], []
    for line in text.split("\n"):
        if line == "":
            if block:
                out.append(block)
            block = []
        else:
            block.append(line)
    if block:
        out.append(block)
    return out


def paragraph(text, heading):
    return next((p for p in paragraphs(text) if p[0] == heading), None)


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def items(lines, prefix):
    """Items that start with `prefix` (e.g. '  why: '), each joined with its continuation lines
    (indented further than the prefix's own indentation plus one level)."""
    out, current = [], None
    depth = indent_of(prefix) + 2
    for line in lines:
        if line.startswith(prefix):
            current = [line[len(prefix):]]
            out.append(current)
        elif current is not None and indent_of(line) >= depth and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(parts) for parts in out]


def run_list(text, every):
    """The runs a header names: 'every run', 'run 3' or 'runs 1, 6' (a concise head's "(as run
    ...)" after them is not a run list: concise_head reads it)."""
    text = text.split(" (as run")[0].strip()
    if text in ("every run", "every run (every trial)"):
        return list(every)
    m = re.fullmatch(r"runs? ([0-9]+(?:, [0-9]+)*)", text)
    if not m:
        raise ValueError(f"not a run list: {text!r}")
    return [int(x) for x in m.group(1).split(", ")]


# ------------------------------------------------------------------------------------------
# Why (concise and brief)

def why_block(text, every, view):
    """The concise Why block: each group's header (joined across its lines) and its one why."""
    block = paragraph(text, WHY_HEADING)
    if block is None:
        return []
    out, header, head, lines = [], [], "", block[1:]
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("    why: "):
            sentence = [line[len("    why: "):]]
            while i + 1 < len(lines) and lines[i + 1].startswith("      "):
                i += 1
                sentence.append(lines[i].strip())
            if header:                  # sentences of the same runs in a row share one head
                head = " ".join(header).rstrip(":")
            out.append(Listed(view, run_list(head, every), " ".join(sentence), head,
                              concise_labels(head)))
            header = []
        else:
            header.append(line.strip())
        i += 1
    return out


SELDOM = ("in fewer than half of a label's trials (the sentences: --full; the kinds: xferlab "
          "help explanations): ")


def seldom_counts(text):
    """The Why block's last line, the findings fewer than half of a label's trials make:
    [(label, rule, with, trials)]; [] where there is none."""
    block = paragraph(text, WHY_HEADING)
    if block is None:
        return []
    lines = block[1:]
    start = next((i for i, line in enumerate(lines) if line.startswith("  " + SELDOM[:30])), None)
    if start is None:
        return []
    body = " ".join(line.strip() for line in lines[start:])
    if not body.startswith(SELDOM):
        return [("?", "?", 0, 0)]          # a line the audit cannot read is a problem
    out = []
    for label, rules in re.findall(r"'((?:[^']|'(?!: ))*)': (.*?)(?=; '|$)", body[len(SELDOM):]):
        for rule, k, n in re.findall(r"([a-z0-9/-]+) in (\d+) of (\d+) trials", rules):
            out.append((label, rule, int(k), int(n)))
    return out


def concise_labels(head):
    """The labels of a concise head "runs 3, 8 (as run 'x' in 2 of 5 trials)", "(as runs 'a',
    'b', every trial)": [(label, with, trials)] (with and trials None where every trial or the
    plan has one); None for "every run" or a head without labels."""
    m = re.search(r" \(as runs? (.*)\)$", head)
    if not m:
        return None
    out = []
    for label, counts in re.findall(r"'((?:[^']|'(?! in |, |$))*)'( in \d+ of \d+ trials)?",
                                    m.group(1)):
        n = re.findall(r"\d+", counts)
        out.append((label, int(n[0]) if n else None, int(n[1]) if n else None))
    return out


def machine_line(text):
    """The default and brief reports' "Machine: shared during K of N runs: ..." joined across its
    lines (None: no such line)."""
    block = next((p for p in paragraphs(text) if p[0].startswith("Machine: ")), None)
    return " ".join(line.strip() for line in block) if block else None


# ------------------------------------------------------------------------------------------
# --full

def shared_block(text, every):
    """The full report's "Said of several runs": [(runs, why sentences, notes)]."""
    block = paragraph(text, SHARED_HEADING)
    if block is None:
        return []
    groups, lines, i = [], block[1:], 0
    while i < len(lines):
        head = [lines[i].strip()]
        while not head[-1].endswith(":") and i + 1 < len(lines):
            i += 1
            head.append(lines[i].strip())
        body = []
        while i + 1 < len(lines) and indent_of(lines[i + 1]) >= 4:
            i += 1
            body.append(lines[i])
        runs = run_list(" ".join(head).rstrip(":"), every)
        groups.append((runs, items(body, "    why: "), items(body, "    note: ")))
        i += 1
    return groups


def run_sections(text):
    """Each 'Run N:' section of the full report: {N: its lines}."""
    out = {}
    for block in paragraphs(text):
        m = re.match(r"Run (\d+): ", block[0])
        if m and any(line.startswith("  ") for line in block[1:]):
            out[int(m.group(1))] = block
    return out


def errors_by_run(text):
    """The errors printed in each 'Run N:' block (the concise report's error sections, the full
    report's run sections): {N: [error text joined across its lines]}."""
    return {n: items(block, "  error: ") for n, block in run_sections(text).items()}


def full_view(text, every):
    """(a Listed per why of every run's section and of the shared block, {run: [notes]},
    {run: per-copy verdict line})."""
    listed, notes, per_copy = [], {}, {}
    for runs, whys, shared_notes in shared_block(text, every):
        listed += [Listed("full", runs, s) for s in whys]
        for r in runs:
            notes.setdefault(r, []).extend(shared_notes)
    for n, block in run_sections(text).items():
        listed += [Listed("full", [n], s) for s in items(block, "  why: ")]
        notes.setdefault(n, []).extend(items(block, "  note: "))
        line = next((s for s in items(block, "  per-copy p50 vs run ")), None)
        if line is not None:
            per_copy[n] = "per-copy p50 vs run " + line
    return listed, notes, per_copy


def every_run_notes(text):
    """Notes printed once for every run ('note (every run): ...' at the left margin)."""
    return [n for runs, n in concise_notes(text) if runs == "every run"]


# ------------------------------------------------------------------------------------------
# Summary and notes

def summary(text, view):
    block = paragraph(text, "Summary")
    if block is None:
        return []
    return [Listed(view, None, s) for s in items(block, "  - ")]


def concise_notes(text):
    """(runs as printed, note) of every 'note (...): ...' at the left margin."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("note ("):
            parts = [lines[i]]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
                i += 1
                parts.append(lines[i].strip())
            m = re.match(r"note \((every run|runs? [0-9, ]+)\): (.*)$", " ".join(parts),
                         re.DOTALL)
            if m:
                out.append((m.group(1), m.group(2)))
        i += 1
    return out


# ------------------------------------------------------------------------------------------
# Tables

def cells_of(line):
    """The cells of a table line: (start, end, text) of each run of words one space apart."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def table(block, columns, key):
    """Rows of a rendered table as {column: text}. `columns`: (header, 'l' or 'r') in order; a
    left-aligned cell starts where its header starts, a right-aligned one ends where its header
    ends; a row starts where column `key` has a cell, later lines continue its wrapped cells."""
    header, lines = block[1], block[2:]
    spans, at = {}, 0
    for name, align in columns:
        start = header.index(name, at)
        spans[name] = (align, start, start + len(name))
        at = start + len(name)
    rows = []
    for line in lines:
        found = {}
        for start, end, text in cells_of(line):
            for name, (align, c_start, c_end) in spans.items():
                if (align == "l" and start == c_start) or (align == "r" and end == c_end):
                    found[name] = text
                    break
        if key in found or not rows:
            rows.append(found)
        else:
            for name, text in found.items():
                rows[-1][name] = (rows[-1].get(name, "") + " " + text).strip()
    return rows


RUNS_COLUMNS = [("#", "r"), ("label", "l"), ("launcher", "l"), ("thr", "r"), ("status", "l"),
                ("copies", "r"), ("aggregate vs baseline (this trial)", "l")]
TRIALS_COLUMNS = [("label (its runs)", "l"), ("trials", "r"), ("median agg.", "r"),
                  ("95% CI (mean)", "l"), ("CV", "r"), ("vs baseline of its sweep point", "l")]
# The default report's: one line per label, the trials column only where their counts differ.
CONCISE_TRIALS_COLUMNS = [("label", "l"), ("trials", "r"), ("median agg.", "r"),
                          ("trial CV", "r"), ("vs baseline", "l"), ("95% CI, p", "l")]
BANDWIDTH_COLUMNS = [("#", "r"), ("aggregate", "r"), ("per-copy p50 (p10-p90) GB/s", "l"),
                     ("CV", "r"), ("Jain", "r"), ("conc. host/dev", "l"), ("scaling", "l")]
PLAN_BANDWIDTH_COLUMNS = [("label", "l"), ("aggregate", "r"), ("per-copy p50", "r"), ("CV", "r"),
                          ("Jain", "r"), ("conc. host/dev", "l")]


def runs_table(text):
    block = paragraph(text, "Runs")
    return table(block, RUNS_COLUMNS, "#") if block else None


def trials_table(text):
    block = next((p for p in paragraphs(text) if p[0].startswith("Verdicts across trials")), None)
    if not block:
        return None
    if "label (its runs)" in block[1]:
        return table(block, TRIALS_COLUMNS, "trials")
    columns = [c for c in CONCISE_TRIALS_COLUMNS if c[0] != "trials" or " trials " in block[1]]
    rows = table(block, columns, "median agg.")
    each = re.search(r"\((\d+) trials each;", block[0])
    for row in rows:
        row["concise"] = True
        if each:
            row.setdefault("trials", each.group(1))
    return rows


def bandwidth_table(text):
    block = paragraph(text, "Bandwidth")
    return table(block, BANDWIDTH_COLUMNS, "#") if block else None


def plan_bandwidth_table(text):
    block = next((p for p in paragraphs(text) if p[0].startswith("Bandwidth (per run of the "
                                                                 "plan")), None)
    return table(block, PLAN_BANDWIDTH_COLUMNS, "aggregate") if block else None


def table_run_numbers(text):
    """The run numbers a reader finds in the default tables: the runs table's #, the trials
    table's '(runs ...)'."""
    found = set()
    for row in runs_table(text) or []:
        if row.get("#", "").isdigit():
            found.add(int(row["#"]))
    for row in trials_table(text) or []:
        m = re.search(r"\((runs? [0-9, ]+)\)$", row.get("label (its runs)", ""))
        if m:
            found.update(int(x) for x in re.findall(r"\d+", m.group(1)))
    return found


HANDOFF_COLUMNS = [("label", "l"), ("device", "r"), ("trials", "r"), ("hand-off rate", "r"),
                   ("run length", "r"), ("kept / handed of", "l"), ("gap p50", "l")]


def handoff_table(text):
    """The default report's Hand-off table as rows (None: no such table)."""
    block = next((p for p in paragraphs(text) if p[0].startswith("Hand-off")), None)
    if block is None:
        return None
    # The title may wrap: the header is the line that names the columns.
    at = next(i for i, line in enumerate(block) if "hand-off rate" in line)
    columns = [c for c in HANDOFF_COLUMNS if f" {c[0]} " in f" {block[at]} " or c[0] == "label"]
    return table([block[0]] + block[at:], columns, "hand-off rate")
