"""Every block of a rendered view is one the audit reads, and the tables a view must have are
there (docs/reading-reports.md, "The terminal table"): a block of no known heading is a finding,
so a new table or line of figures cannot be printed unaudited; without trials the runs and
bandwidth tables, with trials the trials table and the plan's bandwidth table (--full: both
tables of the trials and the runs' own). Standard library only.
"""

import re

import audit_report as rep

HEADINGS = {
    "what ran": re.compile(r"^What ran( \(.*\))?$"),
    "what differs": re.compile(r"^What differs between runs$"),
    "legend": re.compile(r"^GB/s = 10\^9 bytes/s[.;] "),
    "hand-off": re.compile(r"^Hand-off( on device \S+)? \("),
    "runs": re.compile(r"^Runs$"),
    "trials": re.compile(r"^Verdicts across trials \("),
    "bandwidth": re.compile(r"^Bandwidth$"),
    "plan bandwidth": re.compile(r"^Bandwidth \(per run of the plan"),
    "why": re.compile(r"^Why\b"),
    "run": re.compile(r"^Run \d+: "),
    "shared": re.compile(r"^Said of several runs "),
    "per run": re.compile(r"^Per run$"),
    "summary": re.compile(r"^Summary$"),
    "machine": re.compile(r"^Machine: shared during "),
    "pointer": re.compile(r"^Each run's workers, gaps, device and helper figures and thread "
                          r"attributes: --full$"),
    "watched": re.compile(r"^Watched program \(run \d+\)$"),   # audit_watched.py reads it
}
IN_VIEW = {
    "default": {"what ran", "what differs", "legend", "runs", "trials", "bandwidth",
                "plan bandwidth", "hand-off", "why", "machine", "run", "summary", "pointer",
                "watched"},
    "full": {"what ran", "what differs", "legend", "runs", "trials", "bandwidth", "shared",
             "per run", "run", "summary", "watched"},
    "brief": {"runs", "trials", "bandwidth", "plan bandwidth", "machine", "summary"},
}


def kind_of(block):
    return next((kind for kind, regex in HEADINGS.items() if regex.match(block[0])), None)


def check_layout(audit, text, view):
    blocks = rep.paragraphs(text)
    kinds = [kind_of(b) for b in blocks[1:]]      # the first block is the title's
    for block, kind in zip(blocks[1:], kinds):
        if kind not in IN_VIEW.get(view, set()):
            audit.add("report", "layout", block[0], view,
                      "a block the audit does not read" if kind is None
                      else f"no '{block[0]}' block in this view")
    if not audit.plan.runs:
        return
    trials = any(r.trial > 1 for r in audit.plan.runs)
    if not trials:
        wanted = ["runs", "bandwidth"]
    elif view == "full":
        wanted = ["runs", "trials", "bandwidth"]
    else:
        wanted = ["trials", "plan bandwidth"]
    for kind in wanted:
        if kinds.count(kind) != 1:
            audit.add("report", "layout", kind, view,
                      f"{kinds.count(kind)} '{kind}' tables: one in this view")
    for kind in ("runs", "trials", "bandwidth", "plan bandwidth"):
        if kind not in wanted and kind in kinds:
            audit.add("report", "layout", kind, view, "not a table of this view")
