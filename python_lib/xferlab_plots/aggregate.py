"""Aggregate per run: one bar per run (bytes moved in the measurement window / window), the
baseline marked, and the confidence interval over trials where the results file has trials.
"""
from . import style


def trial_interval(run):
    """(low, high): the 95% interval (Student t) of the mean aggregate B/s over the trials of
    the run's label (results.json's trial_groups), or None when the run has no trials."""
    group = run.extra.get("trial_group") or {}
    low, high = group.get("mean_ci_low"), group.get("mean_ci_high")
    if low is None or high is None:
        return None
    return float(low), float(high)


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
        # The label's interval, drawn on each of its trials' bars (it need not contain one
        # trial's own value, so it is a segment, not an error bar around the bar's end).
        y, _, ci = zip(*with_ci)
        lows, highs = [lo / 1e9 for lo, _ in ci], [hi / 1e9 for _, hi in ci]
        lines = ax.hlines(y, lows, highs, colors="#000000", linewidth=1.4, zorder=3)
        lines.set_gid("trial-intervals")
        ax.plot(lows + highs, list(y) * 2, "|", color="#000000", markersize=9, zorder=3)
    for y, (run, value) in zip(ys, rows):
        text = style.gbps_number(value) + ("  baseline" if run.index == baseline_run else "")
        ax.annotate(text, (value, y), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=8)
    ax.set_yticks(ys, [r.title for r, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, max(values + [hi / 1e9 for _, _, (_, hi) in with_ci], default=1.0) * 1.15)
    ax.set_xlabel("aggregate bandwidth (GB/s = 10^9 B/s): bytes moved in the measurement "
                  "window / window")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    fig.suptitle(f"{scenario}: aggregate bandwidth per run", fontsize=11)
    if with_ci:
        style.footnote(fig, ["black segment: 95% interval (Student t) of the mean aggregate over "
                             "the trials of the run's label"])
    else:  # on the figure only, not in the terminal
        style.footnote(fig, ["one pass per run: no confidence interval (no trials recorded)"])
    return fig, []
