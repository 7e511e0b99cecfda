"""What the explanations audit reads from the catalogue (docs/reading-reports.md,
"Explanations"): the constants table, by name, and which rule a printed sentence belongs to (the
sentence shapes' openings). Standard library only.
"""

import os
import re

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                    "reading-reports.md")
CONSTANTS_HEADING = "### The catalogue's constants"

# Every constant the audit's rules apply; a catalogue without one of them is an error.
NEEDED = (
    "overlap_host_min", "overlap_factor", "wait_fraction", "wait_busy", "idle_share",
    "slow_factor", "queued_transfer", "unequal_jain", "keep_run_length", "hand_run_length",
    "min_sequence_copies", "min_gaps", "gap_apart", "handoff_high", "practical_ratio",
    "sign_level", "fall_bound", "min_cause_trials", "switch_low_rate", "switch_high_rate", "switch_gap_apart",
    "tick_seconds", "notable_others", "notable_steal", "steal_ticks_per_cpu", "verdict_level",
    "negligible_ratio", "suggested_trials", "interpreter_gap_apart", "work_turns",
)

ROW = re.compile(r"^\|\s*`(?P<name>[A-Za-z_][A-Za-z0-9_]*)`\s*\|\s*(?P<value>[^|]+?)\s*\|")


class CatalogueError(Exception):
    """The catalogue does not say what the audit needs."""


class Constants:
    """The catalogue's constants by name: `c.wait_fraction`."""

    def __init__(self, values):
        self.values = dict(values)

    def __getattr__(self, name):
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise CatalogueError(f"the catalogue's constants table has no `{name}`") from None


def constants_section(text):
    """The lines of the constants table's section (up to the next heading)."""
    lines = text.splitlines()
    try:
        start = lines.index(CONSTANTS_HEADING)
    except ValueError:
        raise CatalogueError(f"no '{CONSTANTS_HEADING}' section") from None
    section = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        section.append(line)
    return section


def parse_constants(text, needed=NEEDED):
    """The constants table of the catalogue's text: {name: number}. Fails on a value that is not
    a number, a name given twice and a needed name that is missing."""
    values = {}
    for line in constants_section(text):
        m = ROW.match(line)
        if not m:
            continue
        name, raw = m["name"], m["value"]
        try:
            value = float(raw)
        except ValueError:
            raise CatalogueError(f"constant `{name}`: {raw!r} is not a number") from None
        if name in values:
            raise CatalogueError(f"constant `{name}` is listed twice")
        values[name] = int(value) if value.is_integer() else value
    missing = [n for n in needed if n not in values]
    if missing:
        raise CatalogueError("the catalogue's constants table lacks " +
                             ", ".join(f"`{n}`" for n in missing))
    return Constants(values)


def load_constants(path=DOCS):
    with open(path, encoding="utf-8") as f:
        return parse_constants(f.read())


# ------------------------------------------------------------------------------------------
# Which rule a printed sentence belongs to, and its kind where the rule words it several ways

RUN_OPENINGS = [
    ("no-copies", None, r"no measured copies$"),
    ("calls-one-at-a-time", None, r"calls never overlapped: one copy call in flight"),
    ("calls-short", None, r"calls never overlapped, but they had little chance to"),
    ("device-one-at-a-time", None, r"copies never overlapped on device "),
    ("waiting-not-moving", None, r"on device \S+ calls overlapped "),
    ("calls-wait", None, r"calls wait "),
    ("idle-window", None, r"no copy call was in flight for "),
    ("hand-off", None, r"device \S+ changed hands at rate "),
    ("returned-sooner-kept", None, r"on device \S+ the workers that returned sooner kept it"),
    ("gil-released", None, r"gil = release: the GIL was not held"),
    ("per-context-in-run", None, r"device \S+: transfers of \d+ CUDA contexts"),
    ("same-aggregate-slower-copies", "trials",
     r"aggregate not different from the baseline's across trials"),
    ("same-aggregate-slower-copies", "one-trial",
     r"in this trial the aggregate was within the runs' noise"),
    ("slowest-call", "queued", r"queued: the slowest call"),
    ("slowest-call", "erratic", r"erratic: the slowest transfer"),
    ("slowest-call", "untimed", r"the slowest call took .*without device times"),
    ("unequal-service", "no-copy", r"unequal service in .*made no measured copy"),
    ("unequal-service", "differed", r"unequal service in .*the worker served least differed"),
    ("unequal-service", "named", r"unequal service in "),
    ("scaling", "more", r"more threads, more bytes per second"),
    ("scaling", "fewer", r"more threads, fewer bytes per second"),
    ("scaling", "none", r"scaling .*: the median within "),
    ("scaling", "both-ways", r"scaling .*: the trials' ratios go both ways"),
    ("scaling", "not-significant", r"scaling .*, not significant: sign test"),
    ("shared-machine", None, r"shared machine: "),
    ("far-node", None, r"device \S+: the host pages of \d+ of the \d+ sampled "),
    ("watched-reference", None, r"device \S+ (h2d|d2h): the program's copies moved "),
]

SUMMARY_OPENINGS = [
    ("bookkeeping", "input", r"input: "),
    ("bookkeeping", "interrupted", r"interrupted: the results are partial"),
    ("bookkeeping", "incomplete", r"incomplete: "),
    ("bookkeeping", "fit", r"sized for this machine \(--fit\): "),
    ("bookkeeping", "baseline", r"(baseline: run |baseline: '|baselines, one per sweep point: |no "
                                r"run finished ok with measured copies)"),
    ("bookkeeping", "extremes", r"highest (median )?aggregate: "),
    ("verdicts", "one-trial", r"one trial per run: "),
    ("verdicts", "faster", r"faster than the baseline of its sweep point"),
    ("verdicts", "slower", r"slower than the baseline of its sweep point"),
    ("verdicts", "negligible", r"a difference from the baseline of its sweep point under"),
    ("verdicts", "no difference found", r"no difference found from the baseline"),
    ("verdicts", "not testable", r"not testable with these trial counts"),
    ("noise-lists", "inside", r"aggregate inside the noise of its own run"),
    ("noise-lists", "outside", r"aggregate outside the noise of its own run"),
    ("noise-lists", "understates", r"per-copy bandwidth understates "),
    ("gap-vs-handoff", None, r"serialized devices, gap after a copy vs hand-off: "),
    ("gap-decides", None, r".* \(threads\.between = .*\) kept the device "),
    ("context-switch", None, r"with transfer\.context = "),
    ("interpreter-gap", None, r"python(-ft|-subinterp)? workers \(.*\) called again after a "),
    ("gil-serializes-work", None, r"Python work between copies \(params\.work_us = "),
    ("warmups-in-window", None, r"\d+ warm-up cop(y|ies) overlapped the measurement window"),
    ("failed-runs", None, r"run \d+ \(.*\) (failed|interrupted|skipped)(: |$)"),
]

_COMPILED = {}


def classify(sentence, summary=False):
    """(rule id, kind or None) of a printed sentence by its opening; (None, None) for a sentence
    no catalogue shape opens with."""
    openings = SUMMARY_OPENINGS if summary else RUN_OPENINGS
    for rule, kind, pattern in openings:
        regex = _COMPILED.get(pattern)
        if regex is None:
            regex = _COMPILED[pattern] = re.compile(pattern)
        if regex.match(sentence):
            return rule, kind
    return None, None


def printed_id(rule, kind):
    """The id expected.json names a printed sentence by: the rule, with its kind if any."""
    return f"{rule}/{kind}" if kind else rule
