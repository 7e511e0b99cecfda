"""Reading --full's run sections and its "Said of several runs" block back into items: each
line of a known shape (a run's payload, thread attributes under their heading, the copies line,
the workers' tables row by row, hand-off, device-timed, device, staging helper and timed-block
lines), wrapped lines joined with one space; a line of no known shape is an item of kind
"unread". Standard library only.
"""

import dataclasses
import re

import audit_report as rep

STATUS_END = re.compile(r", (ok|failed|interrupted|skipped)\)$")


# ------------------------------------------------------------------------------------------
# Reading a section

@dataclasses.dataclass
class Item:
    kind: str           # payload, threads, copies, workers, gaps, hand-off, device-timed,
    text: str = ""      # device, helpers, timed-blocks, skipped (audited elsewhere), unread
    rows: list = None   # a table's header line and rows
    diffs: list = None  # thread attribute lines under a "thread attributes, run B vs" heading
    baseline: int = None


LINE_KINDS = [
    ("payload", re.compile(r"^payload ")),
    ("copies", re.compile(r"^\d+ copies x ")),
    ("hand-off", re.compile(r"^(device -?\d+|host): hand-off rate ")),
    ("device-timed", re.compile(r"^device-timed per-copy p50 ")),
    ("device", re.compile(r"^device -?\d+: \d+ workers?, ")),
    ("timed-blocks", re.compile(r"^timed blocks[ ']")),
    ("host-nodes", re.compile(r"^where the bytes live, ")),
    ("gap-lines", re.compile(r"^gap (stages|counters) over ")),
    ("skipped", re.compile(r"^(why|note|error): |^per-copy p50 vs run \d+: ")),
    ("helpers", re.compile(r"^.+?: \d+ helpers?(?: in \d+ processes \(an engine each\))?, \d+ "
                           r"chunks; ")),
]
THREADS_HEADING = re.compile(r"^thread attributes, run (\d+) vs (this run|these runs|every run):$")


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def read_items(lines, depth):
    """The items of a section's (or a shared group's) lines, each at indent `depth`; lines
    indented further continue an item; tables are read row by row."""
    items, i = [], 0
    while i < len(lines):
        line = lines[i]
        text = line[depth:]
        table = re.match(r"^\s*worker\s+(tid|gap p50)\b", line)
        if table:
            rows = [line]
            while i + 1 < len(lines) and re.match(r"^\s+\d+\s", lines[i + 1]):
                i += 1
                rows.append(lines[i])
            items.append(Item("workers" if table.group(1) == "tid" else "gaps", rows=rows))
        elif THREADS_HEADING.match(text) and indent_of(line) == depth:
            item = Item("threads", text, diffs=[],
                        baseline=int(THREADS_HEADING.match(text).group(1)))
            while i + 1 < len(lines) and indent_of(lines[i + 1]) > depth:
                i += 1
                if indent_of(lines[i]) == depth + 2:
                    item.diffs.append(lines[i].strip())
                elif item.diffs:
                    item.diffs[-1] += " " + lines[i].strip()
            items.append(item)
        else:
            kind = next((k for k, regex in LINE_KINDS if regex.match(text)), "unread")
            if indent_of(line) != depth:
                kind = "unread"
            while i + 1 < len(lines) and indent_of(lines[i + 1]) > depth and \
                    not re.match(r"^\s*worker\s+(tid|gap p50)\b", lines[i + 1]):
                i += 1
                text += " " + lines[i].strip()
            items.append(Item(kind, text.strip()))
        i += 1
    return items


def sections(text):
    """{run index: (title as printed, [Item])} of every 'Run N:' section of the full report."""
    out = {}
    for block in rep.paragraphs(text):
        m = re.match(r"Run (\d+): ", block[0])
        if not m:
            continue
        title, i = block[0], 0
        while not STATUS_END.search(title) and i + 1 < len(block):
            i += 1
            title += " " + block[i].strip()
        out.setdefault(int(m.group(1)), []).append((title, read_items(block[i + 1:], 2)))
    return out


def shared_groups(text, every):
    """[(runs, [Item])] of the "Said of several runs" block."""
    block = rep.paragraph(text, rep.SHARED_HEADING)
    if block is None:
        return []
    groups, lines, i = [], block[1:], 0
    while i < len(lines):
        head = lines[i].strip()
        while not head.endswith(":") and i + 1 < len(lines):
            i += 1
            head += " " + lines[i].strip()
        body = []
        while i + 1 < len(lines) and indent_of(lines[i + 1]) >= 4:
            i += 1
            body.append(lines[i])
        groups.append((rep.run_list(head.rstrip(":"), every), read_items(body, 4)))
        i += 1
    return groups


