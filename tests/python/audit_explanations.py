#!/usr/bin/env python3
"""Independent audit of the explanations an xferlab report prints (issues 32 and 44).

    audit_explanations.py --xferlab PATH/TO/xferlab FILE...

FILE is a results.json (or a *.results.json.xz). For each file the audit derives, with its own
code, what every run must say: the facts of each run from its raw records (audit_facts.py), and
from them the findings that each rule of the catalogue requires (audit_rules.py: its reading of
docs/reading-reports.md, "Explanations", with the constants read from the catalogue's table,
audit_catalogue.py). It renders the report three ways (`xferlab report FILE`, `--full`,
`--brief`), reads back what each prints (audit_report.py) and compares both ways:

- every printed sentence, under every run it is listed for (the concise and brief Why blocks,
  each run's section and "Said of several runs" of --full), is backed by that run's own finding
  of the same rule and claim, each figure within its printed precision (a concise line of several
  runs is each run's own sentence, figures included; a run list holds the run's own reference),
  and every summary line by a summary finding;
- every finding the derivation requires is printed for its run in each view (--brief: those of
  shared-machine only), every summary finding in each view's Summary;
- and what else names runs (audit_tables.py): the runs table's verdicts within each run, the
  trials table's runs and verdicts across trials, the bandwidth tables' figures, --full's
  per-copy verdicts, every note and error under its own run, and every run number of Why and
  Summary in a default table;
- every other figure the report prints: the tables' remaining columns (audit_figures.py: the
  trials' 95% CI and CV, per-copy CV, Jain, host / device concurrency, the plan table's pooled
  p50 and medians), the header (audit_header.py: title, host, command, What ran, What differs),
  and every line of --full's run sections with each run's payload and thread attributes
  (audit_full.py: copies line, workers' rows, hand-off, device-timed, device, staging helper and
  timed-block lines; a line of no known shape is a finding), and every block of each view
  (audit_layout.py: a block of no known heading, or a table missing, is a finding).

One line per finding of the audit:

    FILE: run N | summary | table: <rule>: <sentence excerpt>: <view>: <why>

Exit 1 when there is any. The analysis xferlab writes (`analysis` in results.json) is never
read. Standard library only.
"""

import argparse
import dataclasses
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile
import time

import audit_figures as figures
import audit_full as full
import audit_header as header
import audit_layout as layout
import audit_watched as watched
import audit_report as rep
import audit_tables as tables
from audit_catalogue import classify, load_constants, printed_id
from audit_facts import Plan
from audit_findings import Found, hold, normalized
from audit_rules import BRIEF_RULES, FULL_ONLY, SUMMARY_FULL_ONLY, derive_run, derive_summary

VIEWS = {"default": [], "full": ["--full"], "brief": ["--brief"]}
VIEW_NAMES = {"default": "default report", "full": "--full", "brief": "--brief"}


@dataclasses.dataclass
class Problem:
    file: str
    where: str              # "run N", "summary" or "table"
    rule: str
    sentence: str
    why: str

    def line(self):
        text = normalized(self.sentence)
        excerpt = text if len(text) <= 80 else text[:77] + "..."
        return f"{self.file}: {self.where}: {self.rule}: {excerpt}: {self.why}"


# ------------------------------------------------------------------------------------------
# One results file

class FileAudit:
    """The findings one results file requires, held against the texts rendered from it."""

    def __init__(self, name, results, constants):
        self.name = name
        self.plan = Plan(results, constants)
        self.run_findings = {r.index: derive_run(self.plan, r) for r in self.plan.runs}
        self.summary_findings = derive_summary(self.plan, self.run_findings)
        self.every = [r.index for r in self.plan.runs]
        self.problems = []
        self.printed = set()            # ids of what was printed (expected.json)

    def add(self, where, rule, sentence, view, why):
        self.problems.append(Problem(self.name, where, rule or "unknown", sentence,
                                     f"{VIEW_NAMES.get(view, view)}: {why}"))

    # --- the views
    def audit(self, texts):
        """`texts`: {view: rendered text} of the views rendered."""
        for view, text in texts.items():
            if view == "full":
                self.audit_full(text)
            else:
                self.audit_why(text, view)
                tables.check_concise_notes(self, text, view)
            tables.check_tables(self, text, view)
            figures.check_tables(self, text, view)
            header.check_header(self, text, view)
            layout.check_layout(self, text, view)
            watched.check_watched(self, text, view)
            self.audit_summary(text, view)
        if "default" in texts:
            tables.check_errors(self, rep.errors_by_run(texts["default"]), "default")
            tables.check_findable_runs(self, texts["default"])
        return self.problems

    def audit_why(self, text, view):
        covered = {}
        for listed in rep.why_block(text, self.every, view):
            self.back(listed, covered)
            self.check_head(listed)
            rule, _ = classify(listed.sentence)
            if view == "brief" or rule in BRIEF_RULES:
                self.add(f"run {listed.runs[0]}", rule, listed.sentence, view,
                         "the brief report has no Why block, and findings that change how a run "
                         "reads are the Machine line's")
            elif rule in FULL_ONLY:
                self.add(f"run {listed.runs[0]}", rule, listed.sentence, view,
                         "a --full finding (or the Hand-off table's) in the default Why block")
        # The findings that change how a whole run reads are counted in the Machine line; the
        # hand-off's are the Hand-off table's rows; a run's slowest call is --full's.
        seldom = self.check_seldom(text) if view == "default" else set()
        self.require(covered, view,
                     (lambda f: False) if view == "brief"
                     else (lambda f: f.rule not in BRIEF_RULES and f.rule not in FULL_ONLY),
                     lambda run, f: (self.plan.run(run).label, f.rule) in seldom)
        self.check_machine_line(text, view)
        if view == "default":
            tables.check_handoff_table(self, text, view)

    def check_head(self, listed):
        """A concise head's labels are those of the runs it lists, with their trial counts."""
        if listed.labels is None:
            return
        runs = [self.plan.run(r) for r in listed.runs if self.plan.run(r)]
        named = [label for label, _, _ in listed.labels]
        for r in runs:
            if r.label not in named:
                self.add(f"run {r.index}", "why head", listed.header, listed.view,
                         f"run {r.index} is '{r.label}', the head names {named}")
        for label, said, total in listed.labels:
            # No count ("in every trial", or a plan of one trial): every run of the label.
            mine = sum(1 for r in runs if r.label == label)
            all_of = sum(1 for r in self.plan.runs if r.label == label)
            want = (all_of, all_of) if said is None else (said, total)
            if (mine, all_of) != want:
                self.add("table", "why head", listed.header, listed.view,
                         f"'{label}': {mine} of its {all_of} runs listed, the head says "
                         f"{want[0]} of {want[1]}")

    def check_machine_line(self, text, view):
        """The runs flagged by shared-machine counted, their figures' ranges holding each."""
        flagged = [f for r in self.plan.runs for f in self.run_findings[r.index]
                   if f.rule in BRIEF_RULES]
        line = rep.machine_line(text)
        if not flagged:
            if line:
                self.add("summary", "shared-machine", line, view, "no run was flagged")
            return
        if line is None:
            self.add("summary", "shared-machine", flagged[0].text(), view,
                     "flagged runs and no Machine line")
            return
        self.printed.add("shared-machine")
        f = Found("shared-machine").say(
            "Machine: shared during {flagged} of {runs} runs: other processes kept {others} of "
            "{cpus} CPUs busy, the hypervisor took {steal}% of CPU time (steal); the copies may "
            "have waited for CPUs or memory bandwidth they shared. Which runs, and each one's "
            "figures: --full").figure("flagged", len(flagged), "int").figure(
                "runs", len(self.plan.runs), "int").claim("cpus", flagged[0].fields["cpus"].value)
        for name in ("others", "steal"):
            f.figure(name, min(x.fields[name].value for x in flagged), "f1")
        for name in ("others", "steal"):
            values = [x.fields[name].value for x in flagged]
            for v in (min(values), max(values)):
                f.fields[name].value = v
                held = hold(line, f, ranges=True)
                if not held.matched or held.problems:
                    self.add("summary", "shared-machine", line, view,
                             "; ".join(held.problems) or "not the Machine line's shape")
                    return

    def audit_full(self, text):
        full.check_full(self, text)
        listed, notes, per_copy = rep.full_view(text, self.every)
        covered = {}
        for item in listed:
            self.back(item, covered)
        self.require(covered, "full", lambda f: True)
        every_run = rep.every_run_notes(text)
        for r in self.plan.runs:
            tables.check_notes(self, r, notes.get(r.index, []) + every_run, "full")
            tables.check_per_copy(self, r, per_copy.get(r.index))
        tables.check_errors(self, rep.errors_by_run(text), "full")

    # --- a printed sentence against the runs it is listed under
    def back(self, listed, covered):
        """Holds the sentence against each listed run's own findings, and marks those that back
        it covered (and their rules printed)."""
        rule, kind = classify(listed.sentence, summary=listed.runs is None)
        if rule:
            self.printed.update({rule, printed_id(rule, kind)})
        for r in listed.runs if listed.runs is not None else [None]:
            where = "summary" if r is None else f"run {r}"
            if r is not None and r not in self.run_findings:
                self.add(where, rule, listed.sentence, listed.view, f"there is no run {r}")
                continue
            own = self.summary_findings if r is None else self.run_findings[r]
            candidates = [f for f in own if rule is None or f.rule == rule]
            if not candidates:
                whose = "the summary has" if r is None else f"run {r} makes"
                self.add(where, rule, listed.sentence, listed.view,
                         f"{whose} no {rule or 'such'} finding" +
                         ("" if rule else " (no catalogue shape matches)"))
                continue
            # Every listing is the run's own sentence, figures included: a concise line of several
            # runs lists only runs that say exactly it.
            held = [hold(listed.sentence, f, ranges=bool(listed.header)) for f in candidates]
            good = next((h for h in held if h.matched and not h.problems), None)
            if good is None:
                best = min(held, key=lambda h: (not h.matched, len(h.problems)))
                self.add(where, rule, listed.sentence, listed.view,
                         f"not what {'the summary' if r is None else f'run {r}'} says: " +
                         "; ".join(best.problems))
                continue
            key = (r, id(good.found))
            if key in covered:
                self.add(where, rule, listed.sentence, listed.view,
                         "listed twice for the same run")
            covered[key] = good.found

    def check_seldom(self, text):
        """The default Why block's count of findings that fewer than half of a label's trials
        make (3 or more trials): each count re-derived; the (label, rule) pairs it exempts."""
        out = set()
        for label, rule, k, n in rep.seldom_counts(text):
            trials = [r for r in self.plan.runs if r.label == label]
            making = [r for r in trials if any(f.rule == rule for f in self.run_findings[r.index])]
            if len(trials) != n or len(making) != k or n < 3 or 2 * k >= n:
                self.add("why", rule, f"'{label}': {rule} in {k} of {n} trials", "default",
                         f"the label has {len(trials)} trials and {len(making)} make the finding: "
                         "not fewer than half of 3 or more")
                continue
            out.add((label, rule))
        return out

    def require(self, covered, view, wanted, exempt=lambda run, f: False):
        """Every finding the derivation requires of a run, printed for that run in `view`
        (`exempt`: counted in the default Why block's line of seldom findings instead)."""
        done = {key[0]: set() for key in covered}
        for (r, fid) in covered:
            done[r].add(fid)
        for run, findings in self.run_findings.items():
            for f in findings:
                if wanted(f) and id(f) not in done.get(run, set()) and not exempt(run, f):
                    self.add(f"run {run}", f.rule, f.text(), view,
                             f"run {run} makes this finding and it is not printed for it")

    # --- summary
    def audit_summary(self, text, view):
        covered = {}
        for listed in rep.summary(text, view):
            self.back(listed, covered)
            rule, _ = classify(listed.sentence, summary=True)
            if view != "full" and rule in SUMMARY_FULL_ONLY:
                self.add("summary", rule, listed.sentence, view, "a summary line of --full only")
        printed = {fid for (_, fid) in covered}
        for f in self.summary_findings:
            if id(f) not in printed and (view == "full" or f.rule not in SUMMARY_FULL_ONLY):
                self.add("summary", f.rule, f.text(), view, "the summary's finding is not printed")

    # --- expected.json
    def check_expected(self, want):
        for rule in want.get("fire", []):
            if rule not in self.printed:
                self.add("file", rule, "(nothing printed)", "expected.json",
                         "this fixture is built so that this sentence fires")
        for rule in want.get("silent", []):
            if rule in self.printed:
                self.add("file", rule, "(printed)", "expected.json",
                         "this fixture is built so that this rule stays silent")


# ------------------------------------------------------------------------------------------
# Files

def load_results(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def render_all(xferlab, path):
    """{view: text} of `xferlab report PATH` in each view (an .xz file through a decompressed
    copy); an empty dict and the error when a render fails."""
    tmp = None
    if path.endswith(".xz"):
        tmp = tempfile.NamedTemporaryFile(suffix=".results.json", delete=False)
        with lzma.open(path, "rb") as f:
            tmp.write(f.read())
        tmp.close()
    try:
        texts = {}
        for view, flags in VIEWS.items():
            out = subprocess.run([xferlab, "report", tmp.name if tmp else path, *flags],
                                 capture_output=True, text=True, check=False)
            if out.returncode != 0:
                return {}, f"xferlab report {' '.join(flags)} exited {out.returncode}: " \
                           f"{out.stderr.strip()[:200]}"
            texts[view] = out.stdout
        return texts, ""
    finally:
        if tmp:
            os.unlink(tmp.name)


def expectations(path):
    """The entry of expected.json next to `path` (tests/fixtures/explanations), if any."""
    folder, base = os.path.split(path)
    name = re.sub(r"\.results\.json(\.xz)?$", "", base)
    try:
        with open(os.path.join(folder, "expected.json"), encoding="utf-8") as f:
            return json.load(f).get(name)
    except (OSError, ValueError):
        return None


def audit_texts(name, results, texts, constants, expected=None):
    """The audit's findings for one results file and the texts rendered from it."""
    audit = FileAudit(name, results, constants)
    audit.audit(texts)
    if expected:
        audit.check_expected(expected)
    return audit.problems


def audit_file(xferlab, path, constants):
    texts, error = render_all(xferlab, path)
    if error:
        return [Problem(path, "file", "render", "", error)]
    return audit_texts(path, load_results(path), texts, constants, expectations(path))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xferlab", required=True, help="the xferlab binary to render with")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    started = time.monotonic()
    constants = load_constants()
    problems = []
    for path in args.files:
        problems += audit_file(args.xferlab, path, constants)
    for p in problems:
        print(p.line())
    print(f"{len(problems)} finding(s) in {len(args.files)} file(s), "
          f"{time.monotonic() - started:.1f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
