"""Per-copy distribution: every run side by side on one bandwidth axis, each run's measured copies
as a box (p10-p90 whiskers, the report's spread) with the copies themselves as points, and the
run's aggregate marked on the same axis. When copies serialize, the points sit far below the
aggregate: per-copy bandwidth measures waiting (docs/reading-reports.md). With trials
(scenario.trials) a label's trials share one row: their copies pooled in one box (the report's
pooled p50), each trial's aggregate and device-timed p50 marked on it.
"""
import inspect

import numpy as np

from . import results, style

STRIP_MAX = 1500  # points per run; beyond that a fixed random sample (the box uses every copy)


def _horizontal(ax):
    """Horizontal boxes: `orientation` from matplotlib 3.10 on (where `vert` is deprecated and
    warns), `vert=False` before (Debian 12 has 3.6)."""
    if "orientation" in inspect.signature(ax.boxplot).parameters:
        return {"orientation": "horizontal"}
    return {"vert": False}


def _strip(values, rng):
    if len(values) <= STRIP_MAX:
        return values, False
    return rng.choice(values, STRIP_MAX, replace=False), True


def draw(runs, scenario):
    """Returns (figure, notes)."""
    rng = np.random.default_rng(17)  # the same sample every time: the same picture
    rows = [(row, np.concatenate([r.copies.per_copy_gbps() for r in row.runs]))
            for row in results.rows(runs)]
    rows = [(row, v) for row, v in rows if len(v)]
    height, legend_in = 1.6 + 0.5 * len(rows), style.legend_height(["x" * 40] * 3)
    fig = style.new_figure(style.WIDTH_IN, height + legend_in)
    legend_ax, ax = fig.subplots(2, 1, gridspec_kw={"height_ratios": [legend_in, height]})
    notes = []
    positions = np.arange(len(rows))
    if rows:
        ax.boxplot([v for _, v in rows], positions=positions, **_horizontal(ax), whis=(10, 90),
                   showfliers=False, widths=0.5, patch_artist=True,
                   boxprops={"facecolor": "#f2f2f2", "edgecolor": style.NEUTRAL},
                   medianprops={"color": "#000000", "linewidth": 1.5},
                   whiskerprops={"color": style.NEUTRAL}, capprops={"color": style.NEUTRAL})
    for y, (row, values) in zip(positions, rows):
        shown, sampled = _strip(values, rng)
        jitter = rng.uniform(-0.18, 0.18, len(shown))
        points = ax.scatter(shown, y + jitter, s=9, color=style.colour(0), alpha=0.55,
                            linewidths=0, zorder=3, label="one copy" if y == 0 else None)
        points.set_gid(f"copies-run{row.first.index}")
        if sampled:
            what = f"runs {results.index_list(row.runs)}" if row.is_trials else \
                f"run {row.first.index}"
            notes.append(f"{what}: {STRIP_MAX} of {len(values)} copies shown as points "
                         "(a fixed random sample); the box uses every copy")
    aggregates = [(y, a / 1e9) for y, (row, _) in zip(positions, rows)
                  for a in row.values("aggregate_Bps") if a]
    if aggregates:
        ys, xs = zip(*aggregates)
        trials = any(row.is_trials for row, _ in rows)
        ax.scatter(xs, ys, marker="D", s=60, color=style.colour(1), edgecolors="#000000",
                   zorder=4, label="aggregate (bytes in the window / window)" +
                   (", one per trial" if trials else ""))
    device = [(y, d / 1e9) for y, (row, _) in zip(positions, rows)
              for d in row.values("device_per_copy_Bps", "p50") if d]
    if device:
        ys, xs = zip(*device)
        ax.scatter(xs, ys, marker="^", s=55, facecolors="none", edgecolors="#000000",
                   linewidths=1.2, zorder=4, label="device-timed per-copy p50")
    ax.set_yticks(positions, [row.title for row, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    all_values = np.concatenate([v for _, v in rows]) if rows else np.array([1.0])
    if all_values.max() > 50 * max(all_values.min(), 1e-12):
        ax.set_xscale("log")
    else:
        ax.set_xlim(left=0)
    ax.set_xlabel("per-copy bandwidth, host-timed (GB/s = 10^9 B/s); box p25-p75, "
                  "line p50, whiskers p10-p90", loc="right")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    style.legend_row(legend_ax, *ax.get_legend_handles_labels())
    unit = "label (its trials pooled)" if any(row.is_trials for row, _ in rows) else "run"
    fig.suptitle(f"{scenario}: per-copy bandwidth per {unit}, with the aggregate", fontsize=11)
    style.footnote(fig, notes)
    return fig, notes
