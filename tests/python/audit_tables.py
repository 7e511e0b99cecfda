"""What a report prints besides its findings, held against the audit's own facts: the runs,
trials and bandwidth tables (each run's verdict within the run, each label's runs and verdict
across trials, the figures), the --full per-copy verdict, every note and error under the runs
it belongs to, and the run numbers a reader needs to find in the default tables. Each check
takes the FileAudit of audit_explanations.py and adds its findings there. Standard library
only.
"""

import math
import re

import audit_report as rep
from audit_findings import Found, hold, normalized, run_numbers
from audit_stats import median, percentile, smallest_p, within


def check_cell(audit, found, printed, where, view):
    """A table line or cell as printed against the line the audit expects."""
    if printed is None:
        audit.add(where, found.rule, found.text(), view, "not printed")
        return
    h = hold(printed, found)
    if not h.matched or h.problems:
        audit.add(where, found.rule, printed, view, "; ".join(h.problems))


def check_tables(audit, text, view):
    for read, check in ((rep.runs_table, runs_table), (rep.trials_table, trials_table),
                        (rep.bandwidth_table, bandwidth_table),
                        (rep.plan_bandwidth_table, plan_bandwidth_table)):
        rows = read(text)
        if rows is not None:
            check(audit, rows, view)


# ------------------------------------------------------------------------------------------
# Verdicts

def noise_verdict(head, ratio, bound, judged, base=None, f=None):
    """docs, "Baseline and noise within one run": '<ratio>x (inside|outside this run's noise
    +-P%)', or '(too few copies to judge noise)'."""
    f = f or Found("noise")
    if base is not None:
        f.runs("base", [base])
    f.say(head + "{ratio} (").figure("ratio", ratio, "ratio")
    if not judged:
        return f.say("too few copies to judge noise)")
    side = "inside" if within(ratio, bound) else "outside"
    return f.say("{side} this run's noise +-{bound})").claim("side", side).figure(
        "bound", math.expm1(bound), "percent")


def verdict_cell(plan, g, f):
    """docs, "One notation for every verdict": a group's verdict across trials."""
    c = plan.c
    if g.is_baseline:
        return f.say("baseline")
    v = g.verdict
    if v is None:
        return f.say("-")
    f.say("{ratio}, ").figure("ratio", v.ratio, "ratio")
    suggested = f"run with --trials {c.suggested_trials})"
    if v.finding == "not tested":
        fewest = min(v.trials, v.baseline_trials)
        return f.say("not tested ({fewest} trial" + ("" if fewest == 1 else "s") +
                     ": between-run drift unknown; " + suggested).figure("fewest", fewest, "int")
    if v.finding == "not testable":
        return f.say("not testable with {m} vs {n} trials (the smallest p they can give is "
                     "{smallest}; " + suggested).figure("m", v.trials, "int").figure(
                         "n", v.baseline_trials, "int").figure(
                         "smallest", smallest_p(v.trials, v.baseline_trials), "g2")
    word = (f"negligible: under {c.negligible_ratio * 100:g} %" if v.finding == "negligible"
            else v.finding)
    f.say(word + " (")
    if v.ci:
        f.say("95% CI [{ci_low}, {ci_high}], ").figure("ci_low", v.ci[0], "ratio").figure(
            "ci_high", v.ci[1], "ratio")
    else:
        f.say("no 95% CI below 4 trials a side, ")
    return f.say("Mann-Whitney p={p}, {m} vs {n} trials)").figure("p", v.p, "g3").figure(
        "m", v.trials, "int").figure("n", v.baseline_trials, "int")


def concise_verdict_cells(plan, g, f, counts):
    """The default report's verdict in two cells, "<ratio>x, <finding> | [lo, hi], p=P" (the
    trial counts after p where they differ between labels)."""
    c, v = plan.c, g.verdict
    if g.is_baseline:
        return f.say("baseline")
    if v is None:
        return f.say("- | -")
    f.say("{ratio}, ").figure("ratio", v.ratio, "ratio")
    vs = ", {m} vs {n}" if counts else ""
    if v.finding == "not tested":
        fewest = min(v.trials, v.baseline_trials)
        return f.say("not tested | {fewest} trial" + ("" if fewest == 1 else "s")).figure(
            "fewest", fewest, "int")
    if v.finding == "not testable":
        f.say("not testable | p >= {smallest}" + vs).figure(
            "smallest", smallest_p(v.trials, v.baseline_trials), "g2")
    else:
        word = (f"negligible (< {c.negligible_ratio * 100:g} %)" if v.finding == "negligible"
                else v.finding)
        f.say(word + " | ")
        if v.ci:
            f.say("[{ci_low}, {ci_high}], ").figure("ci_low", v.ci[0], "ratio").figure(
                "ci_high", v.ci[1], "ratio")
        f.say("p={p}" + vs).figure("p", v.p, "g3")
    if counts:
        f.figure("m", v.trials, "int").figure("n", v.baseline_trials, "int")
    return f


def concise_trials_table(audit, rows, view):
    """The default report's verdicts table: one line per label, no run list."""
    groups = audit.plan.groups
    counts = len({len(g.aggregates) for g in groups}) > 1
    for row, g in zip(rows, groups):
        f = Found("trials table").say("{label} | {trials} | ").label("label", g.label).figure(
            "trials", len(g.aggregates), "int")
        if g.aggregates:
            f.say("{median} | ").figure("median", median(g.aggregates), "gbps")
            concise_verdict_cells(audit.plan, g, f, counts)
        else:
            f.say("- | -")
        cells = [row.get(c, "") for c in ("label", "trials", "median agg.")]
        if g.aggregates:
            cells += [row.get("vs baseline", "")]
            if not g.is_baseline:
                cells += [row.get("95% CI, p", "")]
        else:
            cells += [row.get("vs baseline", "")]
        check_cell(audit, f, " | ".join(cells), "table", view)
        if g.verdict:
            audit.printed.update({"verdicts", f"verdicts/{g.verdict.finding}"})


def check_per_copy(audit, run, printed):
    """--full's 'per-copy p50 vs run B: ...' of a run judged against its baseline."""
    cmp = audit.plan.comparison(run)
    if cmp is None or not cmp.judged:
        if printed:
            audit.add(f"run {run.index}", "noise", printed, "full",
                      "a per-copy verdict for a run not judged against a baseline")
        return
    f = noise_verdict("per-copy p50 vs {base}: ", cmp.p50_ratio, cmp.p50_bound, True,
                      cmp.baseline)
    check_cell(audit, f, printed, f"run {run.index}", "full")


# ------------------------------------------------------------------------------------------
# Tables

def runs_table(audit, rows, view):
    plan = audit.plan
    trials = any(r.trial > 1 for r in plan.runs)
    seen = set()
    for row in rows:
        run = plan.run(int(row.get("#", "-1") or "-1"))
        if run is None:
            audit.add("table", "runs table", str(row), view, "a row of no run")
            continue
        seen.add(run.index)
        label = f"{run.label} (trial {run.trial})" if trials else run.label
        f = (Found("runs table").say("{label} | {status} | {copies} | ").label("label", label)
             .claim("status", run.status).figure("copies", run.copies, "int"))
        cmp = plan.comparison(run)
        if plan.is_baseline_run(run):
            f.say("baseline")
        elif cmp is None:
            f.say("-")
        else:
            noise_verdict("", cmp.ratio, cmp.bound, cmp.judged, f=f)
        printed = " | ".join(row.get(c, "") for c in ("label", "status", "copies",
                                                      "aggregate vs baseline (this trial)"))
        check_cell(audit, f, printed, f"run {run.index}", view)
    for r in plan.runs:
        if r.index not in seen:
            audit.add(f"run {r.index}", "runs table", r.label, view, "no row")


def trials_table(audit, rows, view):
    groups = audit.plan.groups
    if len(rows) != len(groups):
        audit.add("table", "trials table", f"{len(rows)} rows", view,
                  f"{len(groups)} trial groups")
    if rows and rows[0].get("concise"):
        return concise_trials_table(audit, rows, view)
    for row, g in zip(rows, groups):
        f = Found("trials table").say("{label} ({runs}) | {trials} | ").label(
            "label", g.label).runs("runs", [r.index for r in g.runs]).figure(
            "trials", len(g.aggregates), "int")
        if g.aggregates:
            f.say("{median} | ").figure("median", median(g.aggregates), "gbps")
        else:
            f.say("- | ")
        verdict_cell(audit.plan, g, f)
        printed = " | ".join(row.get(c, "") for c in (
            "label (its runs)", "trials", "median agg.", "vs baseline of its sweep point"))
        check_cell(audit, f, printed, "table", view)
        if g.verdict:
            audit.printed.update({"verdicts", f"verdicts/{g.verdict.finding}"})


def bandwidth_table(audit, rows, view):
    for row in rows:
        run = audit.plan.run(int(row.get("#", "-1") or "-1"))
        if run is None:
            audit.add("table", "bandwidth table", str(row), view, "a row of no run")
            continue
        f = Found("bandwidth table")
        if run.copies == 0:
            f.say("- | - | - | -")
        else:
            bw = run.per_copy_bps
            f.say("{aggregate} | {p50} ({p10}-{p90}) | {jain} | ").figure(
                "aggregate", run.aggregate, "gbps").figure(
                "p50", percentile(bw, 0.5) / 1e9, "f2").figure(
                "p10", percentile(bw, 0.1) / 1e9, "f2").figure(
                "p90", percentile(bw, 0.9) / 1e9, "f2").figure(
                "jain", run.fairness_jain, "f2")
            ref = audit.plan.one_thread_reference(run)
            if ref is None:
                f.say("-")
            else:
                f.say("{scaling} vs {ref}").figure("scaling", run.aggregate / ref.aggregate,
                                                   "ratio").runs("ref", [ref.index])
        printed = " | ".join(row.get(c, "") for c in (
            "aggregate", "per-copy p50 (p10-p90) GB/s", "Jain", "scaling"))
        check_cell(audit, f, printed, f"run {run.index}", view)


def plan_bandwidth_table(audit, rows, view):
    for row, g in zip(rows, audit.plan.groups):
        f = Found("bandwidth table").say("{label} | ").label("label", g.label)
        if g.aggregates:
            f.say("{aggregate}").figure("aggregate", median(g.aggregates), "gbps")
        else:
            f.say("-")
        printed = " | ".join(row.get(c, "") for c in ("label", "aggregate"))
        check_cell(audit, f, printed, "table", view)


# ------------------------------------------------------------------------------------------
# Notes, errors, run numbers

def check_concise_notes(audit, text, view):
    """'note (runs ...): ...' lines: each under the runs that have it, every note printed."""
    printed = {}
    for runs_text, note in rep.concise_notes(text):
        for r in rep.run_list(runs_text, audit.every):
            printed.setdefault(r, []).append(note)
    for r in audit.plan.runs:
        check_notes(audit, r, printed.get(r.index, []), view)


def check_notes(audit, run, printed, view):
    own = [normalized(n) for n in run.notes]
    for note in printed:
        if normalized(note) not in own:
            audit.add(f"run {run.index}", "notes", note, view, "not a note of this run")
        elif "records merged" in note:
            audit.printed.add("note/records-merged")
            if not run.records:
                audit.add(f"run {run.index}", "notes", note, view,
                          "says records were merged; the run has none")
    seen = [normalized(n) for n in printed]
    for note in run.notes:
        if normalized(note) not in seen:
            audit.add(f"run {run.index}", "notes", note, view, "the run's note is not printed")


def check_errors(audit, sections, view):
    """Each run's errors in its own section ({run: [printed errors]}), every error printed."""
    for run in audit.plan.runs:
        printed = ["".join(e.split()) for e in sections.get(run.index, [])]
        own = ["".join(e.split()) for e in run.errors]
        for e, text in zip(printed, sections.get(run.index, [])):
            if e not in own:
                audit.add(f"run {run.index}", "errors", text, view, "not an error of this run")
        for e, text in zip(own, run.errors):
            if e not in printed:
                audit.add(f"run {run.index}", "errors", text, view, "the run's error is not "
                          "printed")


def check_findable_runs(audit, text):
    """The runs that Why and Summary name are in the default tables under the same numbers."""
    found = rep.table_run_numbers(text)
    named = set()
    for listed in rep.why_block(text, audit.every, "default"):
        # A head "(as run 'label' ...)" names its runs' labels; "every run" needs no number.
        if listed.labels is None and not listed.header.startswith("every run"):
            named.update(listed.runs)
    for listed in rep.summary(text, "default"):
        for numbers in re.findall(r"\bruns? ((?:\d+, )*\d+)", listed.sentence):
            named.update(run_numbers(numbers))
    for r in sorted(named - found):
        audit.add(f"run {r}", "run numbers", f"run {r}", "default",
                  "named in Why or Summary but in no default table")


# ------------------------------------------------------------------------------------------
# The Hand-off table (the default report): the hand-off findings of each label's trials

def check_handoff_table(audit, text, view):
    """One row per label and device with hand-off findings, each figure's printed range holding
    every trial's own (docs/reading-reports.md, "The terminal table")."""
    rows = rep.handoff_table(text)
    want = []
    for g in audit.plan.groups:
        by_device = {}
        for r in g.runs:
            for f in audit.run_findings[r.index]:
                if f.rule == "hand-off":
                    by_device.setdefault(f.fields["device"].value, []).append(f)
        want += [(g, device, by_device[device]) for device in sorted(by_device)]
    if rows is None:
        if want:
            audit.add("table", "hand-off table", "(nothing)", view, "hand-off findings and no table")
        return
    if len(rows) != len(want):
        audit.add("table", "hand-off table", f"{len(rows)} rows", view,
                  f"{len(want)} label and device pairs with hand-off findings")
    for row, (g, device, found) in zip(rows, want):
        where = f"label '{g.label}'"
        if "".join(row.get("label", "").split()) != "".join(g.label.split()):
            audit.add(where, "hand-off table", row.get("label", ""), view, "another label")
        if "trials" in row and row["trials"] != f"{len(found)} of {len(g.runs)}":
            audit.add(where, "hand-off table", row["trials"], view,
                      f"{len(found)} of its {len(g.runs)} trials have the finding")
        kept, of = (row.get("kept / handed of", "") + " of ").split(" of ")[:2]
        cells = {"rate": row.get("hand-off rate", ""), "length": row.get("run length", ""),
                 "kept": kept.split(" / ")[0], "handed": (kept.split(" / ") + [""])[1],
                 "workers": of, "gap": row.get("gap p50", "")}
        for name, cell in cells.items():
            values = [f.fields[name].value for f in found if name in f.fields]
            if not values:
                if cell.strip() not in ("-", ""):
                    audit.add(where, "hand-off table", f"{name} {cell!r}", view, "no such figure")
                continue
            kind = found[0].fields[name].kind
            held = Found("hand-off table").say("{x}").figure("x", min(values), kind)
            low = hold(cell, held, ranges=True)
            held.fields["x"].value = max(values)
            high = hold(cell, held, ranges=True)
            for h in (low, high):
                if not h.matched or h.problems:
                    audit.add(where, "hand-off table", f"{name} {cell!r}", view,
                              f"its trials' {name} run {min(values):g} to {max(values):g}")
                    break
