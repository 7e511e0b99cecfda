"""The cause as a picture: each run's hand-off rate (how often consecutive copies on a device came
from different workers) and its per-copy p50 against the measured gap p50 (a worker's time from a
copy's return to its next call), on a log axis. One point per run (per trial with trials), its
marker and colour by launcher; the runs that differ in threads.between alone (a switch: same
scaling key but for it, same trial) are joined in order of their gap; the rate bands that the
report's gap-decides explanation judges by are shaded.

Drawn when the runs give threads.between two values or more (isolate-handoff.toml) and at least
two of them have both a gap and a hand-off rate: elsewhere the gap is not what the runs vary.
"""
import json
from dataclasses import dataclass, field

import numpy as np

from . import style

# The report's bands (app/report/explain/explain_rules_internal.hpp, kSwitchLowRate and
# kSwitchHighRate): a side of a threads.between switch "kept the device" at a rate this low or
# lower, "handed it over" at this high or higher.
KEEP_RATE = 0.25
HAND_RATE = 0.75
KEY = "threads.between"
MARKERS = "os^Dvp*h"


@dataclass
class Point:
    run: object
    gap_ns: float
    rate: float
    p50_Bps: object  # None when the run has no per-copy p50


@dataclass
class Switch:
    """Runs of one trial that differ in threads.between alone, in order of their gap."""

    points: list = field(default_factory=list)


def handoff_rate(run):
    """The run's hand-off rate: the mean over the devices it copied on (analysis "handoffs");
    None without one."""
    rates = [h.get("handoff_rate") for h in run.analysis.get("handoffs") or []
             if isinstance(h, dict) and (h.get("copies") or 0) >= 2]
    rates = [float(r) for r in rates if isinstance(r, (int, float))]
    return float(np.mean(rates)) if rates else None


def between(run):
    """threads.between as the run's settings hold it ("none", "spin:20us", ...)."""
    threads = run.settings.get("threads") or {}
    value = threads.get("between", "none")
    return value if isinstance(value, str) else json.dumps(value)


def points(runs):
    """(a Point for every ok run with a gap p50 and a hand-off rate, the other runs)."""
    out, left = [], []
    for run in runs:
        gap = run.statistic("gap_ns", "p50")
        rate = handoff_rate(run)
        if run.status != "ok" or gap is None or gap <= 0 or rate is None:
            left.append(run)
            continue
        out.append(Point(run, gap, rate, run.statistic("per_copy_Bps", "p50")))
    return out, left


def _without_between(run):
    """The run's scaling key without threads.between (and its sleep/spin length), as text; None
    in files written before scaling keys."""
    text = run.extra.get("scaling_key")
    if not isinstance(text, str) or not text:
        return None
    try:
        key = json.loads(text)
    except ValueError:
        return None
    threads = key.get("threads") if isinstance(key, dict) else None
    if isinstance(threads, dict):
        for name in [k for k in threads if k == "between" or k.startswith("between_")]:
            del threads[name]
    return json.dumps(key, sort_keys=True)


def switches(pts):
    """Every group of two or more points of one trial whose runs differ in threads.between alone
    (and in it), each in order of gap."""
    groups = {}
    for p in pts:
        key = _without_between(p.run)
        if key is None:
            continue
        groups.setdefault((p.run.trial, p.run.threads, key), []).append(p)
    out = []
    for members in groups.values():
        if len({between(p.run) for p in members}) >= 2:
            out.append(Switch(sorted(members, key=lambda p: p.gap_ns)))
    return out


def wanted(runs):
    """Whether the figure is drawn for these runs (the module's docstring)."""
    pts, _ = points(runs)
    return len(pts) >= 2 and len({between(r) for r in runs}) >= 2


def caption(run):
    """A point's caption: the run's index and what sets it apart: its payload file, else its
    threads.between, else its launcher ("6: threads.py", "3: spin:20us", "0: host")."""
    payload = run.settings.get("payload")
    if isinstance(payload, str) and payload:
        what = payload
    elif between(run) != "none":
        what = between(run)
    else:
        what = run.launcher
    return f"{run.index}: {what}"


def draw(runs, scenario):
    """Returns (figure, notes)."""
    pts, left = points(runs)
    notes = []
    if left:
        notes.append("no gap or hand-off rate (not drawn): " +
                     ", ".join(f"run {r.index} ({r.label})" for r in left[:8]) +
                     (f", ... ({len(left)} runs)" if len(left) > 8 else ""))
    launchers = []
    for p in pts:
        if p.run.launcher not in launchers:
            launchers.append(p.run.launcher)
    look = {name: (style.colour(i), MARKERS[i % len(MARKERS)]) for i, name in enumerate(launchers)}
    legend_in = style.LEGEND_IN * 2
    fig = style.new_figure(style.WIDTH_IN, 7.4 + legend_in)
    grid = fig.add_gridspec(3, 1, height_ratios=[4.0, 3.4, legend_in])
    rate_ax = fig.add_subplot(grid[0, 0])
    p50_ax = fig.add_subplot(grid[1, 0], sharex=rate_ax)
    keep = rate_ax.axhspan(0, KEEP_RATE, color=style.tint(style.PALETTE[2], 0.75), linewidth=0,
                           label=f"kept the device (hand-off rate <= {KEEP_RATE})")
    hand = rate_ax.axhspan(HAND_RATE, 1.0, color=style.tint(style.PALETTE[1], 0.75), linewidth=0,
                           label=f"handed it over after about every copy (>= {HAND_RATE})")
    keep.set_gid("handoff-band-keep")
    hand.set_gid("handoff-band-hand")
    joined = switches(pts)
    for i, s in enumerate(joined):
        xs = [p.gap_ns / 1e3 for p in s.points]
        line, = rate_ax.plot(xs, [p.rate for p in s.points], color=style.NEUTRAL, linewidth=1,
                             zorder=2)
        line.set_gid(f"handoff-switch{i}-rate")
        with_p50 = [p for p in s.points if p.p50_Bps is not None]
        line, = p50_ax.plot([p.gap_ns / 1e3 for p in with_p50],
                            [p.p50_Bps / 1e9 for p in with_p50], color=style.NEUTRAL,
                            linewidth=1, zorder=2)
        line.set_gid(f"handoff-switch{i}-p50")
    handles = []
    for name in launchers:
        colour, marker = look[name]
        mine = [p for p in pts if p.run.launcher == name]
        dots = rate_ax.scatter([p.gap_ns / 1e3 for p in mine], [p.rate for p in mine], s=36,
                               color=colour, marker=marker, zorder=3, label=f"{name} threads")
        dots.set_gid(f"handoff-{name}-rate")
        handles.append(dots)
        with_p50 = [p for p in mine if p.p50_Bps is not None]
        dots = p50_ax.scatter([p.gap_ns / 1e3 for p in with_p50],
                              [p.p50_Bps / 1e9 for p in with_p50], s=36, color=colour,
                              marker=marker, zorder=3)
        dots.set_gid(f"handoff-{name}-p50")
    # Each point's caption (on the rate panel; the p50 panel's points sit at the same gaps),
    # above and below in turn along the axis so that neighbours do not overprint. With trials
    # only the first trial's points are captioned.
    captioned = sorted((p for p in pts if p.run.trial == 1), key=lambda p: p.gap_ns)
    for rank, p in enumerate(captioned):
        text = rate_ax.annotate(caption(p.run), (p.gap_ns / 1e3, p.rate),
                                xytext=(4, 5 if rank % 2 == 0 else -11),
                                textcoords="offset points", fontsize=7, color=style.NEUTRAL)
        text.set_gid(f"handoff-run{p.run.index}")
    from matplotlib.ticker import FuncFormatter

    rate_ax.set_xscale("log")
    rate_ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    rate_ax.set_ylim(-0.03, 1.03)
    rate_ax.set_ylabel("hand-off rate")
    p50_ax.set_ylabel("per-copy p50, host-timed (GB/s)")
    p50_ax.set_ylim(bottom=0)
    p50_ax.margins(y=0.15)
    p50_ax.set_xlabel("gap p50: a worker's time from a copy's return to its next call (µs, log)")
    for ax in (rate_ax, p50_ax):
        ax.grid(color="#dddddd", linewidth=0.6)
        ax.margins(x=0.1)
    rate_ax.tick_params(labelbottom=False)
    if joined:
        switch_line, = rate_ax.plot([], [], color=style.NEUTRAL, linewidth=1,
                                    label=f"runs that differ in {KEY} alone")
        handles.append(switch_line)
    style.legend_row(fig.add_subplot(grid[2, 0]), handles + [keep, hand])
    fig.suptitle(f"{scenario}: hand-off rate and per-copy p50 against the gap between copies "
                 "(one point per run" + (", per trial" if any("trial_group" in p.run.extra
                                                               for p in pts) else "") + ")",
                 fontsize=11)
    style.footnote(fig, notes)
    return fig, notes
