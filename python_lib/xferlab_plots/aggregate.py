"""Aggregate per run: one bar per run (bytes moved in the measurement window / window), the
baseline marked, and the confidence interval over trials where the results file has trials.
"""
from . import style


# --- Trials hook -------------------------------------------------------------------------------
# results.json has no trials yet (one pass per run). When the schema gains them, return the
# interval here, in B/s, from run.extra (the run's whole JSON object); the figure then draws it as
# an error bar and drops the "one pass" footnote. Nothing else in this file needs to change.
def trial_interval(run):
    """(low, high) aggregate B/s over the run's trials, or None when the run has no trials."""
    return None
# -----------------------------------------------------------------------------------------------


def draw(runs, scenario, baseline_run):
    """Returns (figure, notes)."""
    rows = [(r, r.statistic("aggregate_Bps")) for r in runs]
    rows = [(r, a / 1e9) for r, a in rows if a]
    fig = style.new_figure(style.WIDTH_IN, 1.5 + 0.42 * len(rows))
    ax = fig.subplots()
    ys = list(range(len(rows)))
    values = [a for _, a in rows]
    colours = [style.NEUTRAL if r.index == baseline_run else style.colour(0) for r, _ in rows]
    for run, bar in zip((r for r, _ in rows), ax.barh(ys, values, height=0.6, color=colours)):
        bar.set_gid(f"aggregate-run{run.index}")
    intervals = [trial_interval(r) for r, _ in rows]
    with_ci = [(y, v, ci) for y, v, ci in zip(ys, values, intervals) if ci is not None]
    if with_ci:
        y, v, ci = zip(*with_ci)
        low = [v_ - lo / 1e9 for v_, (lo, _) in zip(v, ci)]
        high = [hi / 1e9 - v_ for v_, (_, hi) in zip(v, ci)]
        ax.errorbar(v, y, xerr=[low, high], fmt="none", ecolor="#000000", capsize=4,
                    label="confidence interval over trials")
    for y, (run, value) in zip(ys, rows):
        text = style.gbps_number(value) + ("  baseline" if run.index == baseline_run else "")
        ax.annotate(text, (value, y), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=8)
    ax.set_yticks(ys, [r.title for r, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, max(values, default=1.0) * 1.15)
    ax.set_xlabel("aggregate bandwidth (GB/s = 10^9 B/s): bytes moved in the measurement "
                  "window / window")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    fig.suptitle(f"{scenario}: aggregate bandwidth per run", fontsize=11)
    if not with_ci:  # on the figure only: every file says it today, the terminal need not
        style.footnote(fig, ["one pass per run: no confidence interval (no trials recorded)"])
    return fig, []
