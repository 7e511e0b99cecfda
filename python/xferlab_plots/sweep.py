"""Sweeps: for each swept key, the aggregate and the per-copy p50 against the key's value, one
line per [[run]] table (thread scaling, the hand-off scenario's gap, memory kinds).

A key is swept when [sweep] lists it (the runs of one [[run]] table at every sweep point form a
line: the run at plan position i belongs to table i % tables, docs/scenarios.md), or when
[[run]] tables that differ only in that key give it different values (isolate-handoff's
threads.between: one line through the host runs). Values that are all numbers or sizes make a
numeric axis; others keep the order in which the plan first reaches them. With trials
(scenario.trials) a line joins the medians of the trials at each value, and each trial is a
point of its own.
"""
import json
import re
from dataclasses import dataclass, field

import numpy as np

from . import style

MAX_LINES = 10  # beyond that a legend outgrows the figure and no line can be followed
# Values labelled on the axis: past it a numeric axis takes matplotlib's own ticks and another
# labels every k-th value (1,500 labels overprinted one another, and took the layout seconds).
MAX_TICKS = 16
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?\s*$")
_FACTORS = {None: 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
            "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


@dataclass
class Series:
    label: str
    points: list = field(default_factory=list)  # (value text, run), in plan order

    def distinct_values(self):
        return len({text for text, _ in self.points})

    def by_value(self, stat, field_name=None):
        """[(value text, [the statistic of each ok run at that value])], values in plan order:
        one run per value, or a label's trials."""
        out = {}
        for text, run in self.points:
            value = run.statistic(stat, field_name) if run.status == "ok" else None
            bucket = out.setdefault(text, [])
            if value is not None:
                bucket.append(value)
        return [(text, values) for text, values in out.items() if values]


def _text(value):
    return value if isinstance(value, str) else json.dumps(value)


def value_of(run, key):
    """The key's value in this run, as text: the run's own override, else its sweep point, else
    the resolved setting (its *_text form when there is one: "1 GiB" rather than bytes)."""
    if key in run.overrides:
        return _text(run.overrides[key])
    if key in run.sweep_point:
        return run.sweep_point[key]
    section, _, name = key.partition(".")
    table = run.settings.get(section) or {}
    return _text(table.get(name + "_text", table.get(name, "")))


def _identity(run, key, from_sweep, tables):
    others = tuple(sorted((k, v) for k, v in run.sweep_point.items() if k != key))
    if from_sweep:
        return (run.position % tables, others)
    s = run.settings
    overrides = tuple(sorted((k, _text(v)) for k, v in run.overrides.items() if k != key))
    # A run's own params ([[run]] params.<key>) make it another experiment, another line.
    params = json.dumps(s.get("params"), sort_keys=True)
    return (run.launcher, s.get("payload"), s.get("gil"), s.get("mimic"), overrides, params,
            others)


def _series_label(run, key, value):
    return run.label.replace(f" {key}={value}", "").strip() or run.label


def swept(results, runs):
    """[(key, [Series with two or more values])] for every swept key that has such a line."""
    keys = [(k, True) for k in results.sweep_keys]
    for run in runs:
        for k in run.overrides:
            if k not in results.sweep_keys and (k, False) not in keys:
                keys.append((k, False))
    out = []
    for key, from_sweep in keys:
        groups = {}
        for run in runs:
            value = value_of(run, key)
            ident = _identity(run, key, from_sweep, results.run_tables)
            series = groups.setdefault(ident, Series(_series_label(run, key, value)))
            series.points.append((value, run))
        lines = [s for s in groups.values() if s.distinct_values() >= 2]
        if lines:
            out.append((key, lines))
    return out


def _numeric(text):
    m = _SIZE.match(text)
    return float(m.group(1)) * _FACTORS[m.group(2)] if m else None


def _axis(lines):
    """({value text: x position}, log scale?, numeric?): the values themselves on a numeric axis
    when all are numbers or sizes, else 0, 1, 2... in plan order; the ticks are the value
    texts."""
    texts = []
    for s in lines:
        for text, _ in s.points:
            if text not in texts:
                texts.append(text)
    numbers = [_numeric(t) for t in texts]
    if all(n is not None for n in numbers):
        positive = all(n > 0 for n in numbers)
        log = positive and max(numbers) / min(numbers) >= 16
        return dict(zip(texts, numbers)), log, True
    return {t: i for i, t in enumerate(texts)}, False, False


def _ticks(ax, position, numeric):
    """The values as tick labels, as many as MAX_TICKS allows."""
    if len(position) > MAX_TICKS and numeric:
        return  # matplotlib's own ticks on the values' axis
    texts = list(position.keys())
    if len(texts) > MAX_TICKS:
        texts = texts[:: -(-len(texts) // MAX_TICKS)]
    ax.set_xticks([position[t] for t in texts], texts, fontsize=8,
                  rotation=30 if len(texts) > 4 else 0)
    ax.minorticks_off()


def _draw_series(ax, i, series, stat, field_name, position, label):
    """One line through the medians at each value, each trial a point; True when some value
    had trials."""
    at = series.by_value(stat, field_name)
    if not at:
        return False
    xs = [position[text] for text, _ in at]
    ys = [float(np.median(values)) / 1e9 for _, values in at]
    marker = "os^Dvp*h"[(i + i // len(style.PALETTE)) % 8]  # colours repeat, pairs do not
    line, = ax.plot(xs, ys, marker=marker, color=style.colour(i), label=label)
    line.set_gid(f"sweep-{stat}-line{i}")
    trials = [(position[text], v / 1e9) for text, values in at if len(values) > 1
              for v in values]
    if not trials:
        return False
    tx, ty = zip(*trials)
    dots = ax.scatter(tx, ty, s=10, color=style.colour(i), alpha=0.5, linewidths=0, zorder=3)
    dots.set_gid(f"sweep-{stat}-trials{i}")
    return True


def draw(key, all_lines, scenario):
    """Returns (figure, notes)."""
    lines, notes = all_lines[:MAX_LINES], []
    if len(all_lines) > MAX_LINES:
        notes.append(f"{key}: {MAX_LINES} of {len(all_lines)} lines drawn (the first in plan "
                     "order); --run selects others")
    position, log, numeric = _axis(lines)
    legend_in = style.legend_height([s.label for s in lines])
    fig = style.new_figure(style.WIDTH_IN, 4.6 + legend_in)
    grid = fig.add_gridspec(2, 2, height_ratios=[4.6, legend_in])
    axes = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])]
    with_trials = False
    panels = [("aggregate_Bps", None, "aggregate (GB/s)"),
              ("per_copy_Bps", "p50", "per-copy p50, host-timed (GB/s)")]
    for ax, (stat, field_name, ylabel) in zip(axes, panels):
        for i, s in enumerate(lines):
            with_trials |= _draw_series(ax, i, s, stat, field_name, position,
                                        s.label if ax is axes[0] else None)
        ax.set_ylabel(ylabel)
        ax.margins(y=0.1)
        ax.set_ylim(bottom=0)
        ax.grid(color="#dddddd", linewidth=0.6)
        ax.set_xlabel(key)
        if log:
            ax.set_xscale("log", base=2)
        _ticks(ax, position, numeric)
        ax.margins(x=0.08)
    style.legend_row(fig.add_subplot(grid[1, :]), *axes[0].get_legend_handles_labels())
    fig.suptitle(f"{scenario}: aggregate and per-copy p50 against {key} "
                 f"(GB/s = 10^9 B/s)", fontsize=11)
    # The note about trials goes on the figure only: it describes the drawing, not a problem.
    style.footnote(fig, notes + (["lines join the medians of each label's trials; small points: "
                                  "each trial"] if with_trials else []))
    return fig, notes
