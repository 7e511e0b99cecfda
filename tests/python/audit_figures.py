"""The tables' figures that audit_tables.py does not hold, each cell against the audit's own
value from the records: the runs table's launcher and thread count, the trials table's 95% CI
of the mean and between-trial CV, the bandwidth table's per-copy CV, Jain (over the workers'
own-window rates) and host / device concurrency, and the plan's bandwidth table's pooled per-copy
p50, CV, Jain and concurrency (medians over the trials). Definitions: docs/reading-reports.md,
"The numbers, and how each is computed" and "Verdicts across trials". Standard library only.
"""

import audit_report as rep
from audit_findings import Field, field_problem, render_number
from audit_full_lines import launcher_of, thread_count
from audit_stats import cv, mean_concurrency, mean_interval, median

ABSENT = "-"


def check_value(audit, where, rule, column, printed, value, kind, view):
    """One printed figure against the audit's value (None: the cell must say '-')."""
    printed = (printed or "").strip()
    if value is None:
        if printed != ABSENT:
            audit.add(where, rule, f"{column} {printed!r}", view, f"its {column} is '-'")
        return
    if printed == ABSENT or not printed:
        audit.add(where, rule, f"{column} {printed!r}", view,
                  f"its {column} is {render_number(value, kind)}")
        return
    why = field_problem(Field(column, kind, float(value)), printed)
    if why:
        audit.add(where, rule, f"{column} {printed!r}", view, why)


def check_text(audit, where, rule, column, printed, want, view):
    if " ".join((printed or "").split()) != want:
        audit.add(where, rule, f"{column} {printed!r}", view, f"its {column} is '{want}'")


def check_tables(audit, text, view):
    for read, check in ((rep.runs_table, runs_table), (rep.trials_table, trials_table),
                        (rep.bandwidth_table, bandwidth_table),
                        (rep.plan_bandwidth_table, plan_bandwidth_table)):
        rows = read(text)
        if rows is not None:
            check(audit, rows, view)


# ------------------------------------------------------------------------------------------
# What each column is

def concurrency(run):
    """(host, device): the measured calls' mean concurrency; the mean over devices of each
    device's transfers' (None without device times)."""
    return run_host_concurrency(run), run.device_concurrency


def run_host_concurrency(run):
    return mean_concurrency([r.call for r in run.measured])


def counted_trials(group):
    """The trials whose figures the plan's table takes medians of: ok, with measured copies."""
    return [r for r in group.runs if r.status == "ok" and r.copies > 0]


def pooled_p50(group):
    """docs: the p50 of every trial's measured copies together (host-timed GB/s)."""
    return median([b for r in group.runs for b in r.per_copy_bps])


# ------------------------------------------------------------------------------------------
# The tables

def runs_table(audit, rows, view):
    for row in rows:
        run = audit.plan.run(int(row.get("#", "-1") or "-1"))
        if run is None:
            continue        # audit_tables says "a row of no run"
        where = f"run {run.index}"
        check_text(audit, where, "runs table", "launcher", row.get("launcher"), launcher_of(run),
                   view)
        check_text(audit, where, "runs table", "thr", row.get("thr"), str(thread_count(run)),
                   view)


def trials_table(audit, rows, view):
    for row, g in zip(rows, audit.plan.groups):
        where = f"label '{g.label}'"
        values = g.aggregates
        if row.get("concise"):          # the default report: its verdict's CI, the trials' CV
            check_value(audit, where, "trials table", "trial CV", row.get("trial CV"),
                        cv(values) if len(values) > 1 else None, "f3", view)
            continue
        ci = mean_interval(values, 0.95)
        printed = row.get("95% CI (mean)", "")
        if ci is None:
            check_text(audit, where, "trials table", "95% CI (mean)", printed, ABSENT, view)
        else:
            parts = printed.strip("[]").split(", ")
            if not (printed.startswith("[") and printed.endswith("]") and len(parts) == 2):
                audit.add(where, "trials table", f"95% CI (mean) {printed!r}", view,
                          f"its 95% CI is [{render_number(ci[0], 'gb')}, "
                          f"{render_number(ci[1], 'gb')}]")
            else:
                for name, text, value in (("95% CI low", parts[0], ci[0]),
                                          ("95% CI high", parts[1], ci[1])):
                    check_value(audit, where, "trials table", name, text, value, "gb", view)
        check_value(audit, where, "trials table", "CV", row.get("CV"),
                    cv(values) if len(values) > 1 else None, "f3", view)


def check_rows(audit, rule, printed, wanted, view):
    """One row per run (or per run of the plan), each once."""
    if printed != wanted:
        audit.add("table", rule, f"rows {printed}", view, f"one row each, in order: {wanted}")


def bandwidth_table(audit, rows, view):
    check_rows(audit, "bandwidth table", [row.get("#") for row in rows],
               [str(r.index) for r in audit.plan.runs], view)
    for row in rows:
        run = audit.plan.run(int(row.get("#", "-1") or "-1"))
        if run is None:
            continue
        where = f"run {run.index}"
        if run.copies == 0:
            for column in ("CV", "conc. host/dev"):
                check_text(audit, where, "bandwidth table", column, row.get(column), ABSENT, view)
            continue
        check_value(audit, where, "bandwidth table", "CV", row.get("CV"), cv(run.per_copy_bps),
                    "f2", view)
        check_concurrency(audit, where, row.get("conc. host/dev", ""), *concurrency(run),
                          view=view)


def check_concurrency(audit, where, printed, host, device, view):
    parts = printed.split(" / ")
    if len(parts) != 2:
        audit.add(where, "bandwidth table", f"conc. host/dev {printed!r}", view,
                  "not 'host / device'")
        return
    check_value(audit, where, "bandwidth table", "host concurrency", parts[0], host, "f1", view)
    check_value(audit, where, "bandwidth table", "device concurrency", parts[1], device, "f1",
                view)


def plan_bandwidth_table(audit, rows, view):
    check_rows(audit, "bandwidth table", len(rows), len(audit.plan.groups), view)
    for row, g in zip(rows, audit.plan.groups):
        where = f"label '{g.label}'"
        trials = counted_trials(g)
        if not g.aggregates:
            for column in ("per-copy p50", "CV", "Jain", "conc. host/dev"):
                check_text(audit, where, "bandwidth table", column, row.get(column), ABSENT,
                           view)
            continue
        p50 = row.get("per-copy p50", "")
        check_value(audit, where, "bandwidth table", "per-copy p50", p50, pooled_p50(g), "gbps",
                    view)
        check_value(audit, where, "bandwidth table", "CV", row.get("CV"),
                    median([cv(r.per_copy_bps) for r in trials]), "f2", view)
        check_value(audit, where, "bandwidth table", "Jain", row.get("Jain"),
                    median([r.fairness_jain for r in trials]), "f2", view)
        devices = [r.device_concurrency for r in trials]
        check_concurrency(audit, where, row.get("conc. host/dev", ""),
                          median([run_host_concurrency(r) for r in trials]),
                          median(devices) if all(d is not None for d in devices) else None,
                          view=view)

