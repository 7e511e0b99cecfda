"""Aggregate per run: one bar per run (bytes moved in the measurement window / window), the
baseline marked. With trials (scenario.trials) one bar per label: the median of its trials'
aggregates (what the verdicts compare), each trial as a point on it, and the 95% interval of
the mean over the trials; a disturbed trial stands out as a point away from its bar.
"""
from . import results, style


def draw(runs, scenario, baseline_run):
    """Returns (figure, notes)."""
    rows = [(row, row.median("aggregate_Bps")) for row in results.rows(runs)]
    rows = [(row, a / 1e9) for row, a in rows if a]
    fig = style.new_figure(style.WIDTH_IN, 1.5 + 0.42 * len(rows))
    ax = fig.subplots()
    ys = list(range(len(rows)))
    values = [a for _, a in rows]
    colours = [style.NEUTRAL if row.contains(baseline_run) else style.colour(0) for row, _ in rows]
    for (row, _), bar in zip(rows, ax.barh(ys, values, height=0.6, color=colours)):
        bar.set_gid(f"aggregate-run{row.first.index}")
    with_ci = [(y, row.interval) for y, (row, _) in zip(ys, rows) if row.interval]
    if with_ci:
        # The interval of the mean need not contain the median, so it is a segment across the
        # bar, not an error bar around the bar's end.
        y, ci = zip(*with_ci)
        lows, highs = [lo / 1e9 for lo, _ in ci], [hi / 1e9 for _, hi in ci]
        lines = ax.hlines(y, lows, highs, colors="#000000", linewidth=1.4, zorder=3)
        lines.set_gid("trial-intervals")
        ax.plot(lows + highs, list(y) * 2, "|", color="#000000", markersize=9, zorder=3)
    trial_points = [(y, v / 1e9) for y, (row, _) in zip(ys, rows) if row.is_trials
                    for v in row.values("aggregate_Bps")]
    if trial_points:
        y, x = zip(*trial_points)
        points = ax.scatter(x, y, s=16, color="#ffffff", edgecolors="#000000", linewidths=0.9,
                            zorder=4)
        points.set_gid("trial-points")
    for y, (row, value) in zip(ys, rows):
        text = style.gbps_number(value) + ("  baseline" if row.contains(baseline_run) else "")
        # Right of the points and the interval, so that the number covers neither.
        right_end = max([value] + [v / 1e9 for v in row.values("aggregate_Bps")] +
                        ([row.interval[1] / 1e9] if row.interval else []))
        ax.annotate(text, (right_end, y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(ys, [row.title for row, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    right = values + [x for _, x in trial_points] + [hi / 1e9 for _, (_, hi) in with_ci]
    ax.set_xlim(0, max(right, default=1.0) * 1.15)
    ax.set_xlabel("aggregate bandwidth (GB/s = 10^9 B/s): bytes moved in the measurement "
                  "window / window", loc="right")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    if trial_points:
        fig.suptitle(f"{scenario}: aggregate bandwidth, median of each label's trials",
                     fontsize=11)
        lines = ["bar: the median of the label's trials; white points: each trial's aggregate"]
        if with_ci:
            lines.append("black segment: 95% interval (Student t) of the mean aggregate over "
                         "the label's trials")
        style.footnote(fig, lines)
    else:  # on the figure only, not in the terminal
        fig.suptitle(f"{scenario}: aggregate bandwidth per run", fontsize=11)
        if any("trial_group" in r.extra for r in runs):
            style.footnote(fig, ["one trial of each label drawn (--run): no interval over "
                                 "trials"])
        else:
            style.footnote(fig, ["one pass per run: no confidence interval (no trials "
                                 "recorded)"])
    return fig, []
