"""Timeline: for each run, one lane per worker on one time axis; every copy's host call (light),
its device transfer where the backend recorded one (full colour, inside the call) and the
warm-up copies (hatched). Who held the device when, and who waited, is visible at a glance.

Lanes come from a list (run_lanes): the workers', then the staging engine's helper threads
(transfer.path = "staged": grey where a helper was busy with chunks, from results.json's
helper_threads[].busy). Beyond what a pixel can show, a lane's intervals are merged at pixel resolution
(what the picture would show anyway, drawn in a fraction of the time) and the figure says so.
"""
from dataclasses import dataclass

import numpy as np

from . import style

RUNS_PER_PAGE = 6
# A page's lanes: 96 of 0.32 in are about 3,100 px, far below the 2^16 px Agg can draw. A run
# with more lanes (4096 workers) is drawn alone on its page with its first LANES_PER_PAGE lanes,
# and the figure says so.
LANES_PER_PAGE = 96
# The most pages `plot` draws: each takes about a second (docs/performance.md); xferlab_plots
# refuses the per-run figures of selections that need more (MAX_PAGES, __init__.py).
MAX_PAGES = 40
LANE_IN = 0.32  # inches per lane
HOST_HEIGHT, DEVICE_HEIGHT = 0.8, 0.44
AXES_PX = style.WIDTH_IN * style.DPI * 0.85  # the time axis' width in pixels, about


@dataclass
class Lane:
    """One horizontal lane: a thread that makes copies, and its copies' intervals (host ns)."""

    name: str  # the tick label
    gid: str  # SVG group id prefix of the lane's artists: lane-run<R>-worker<W>
    hue: str
    host_start: np.ndarray
    host_end: np.ndarray
    warmup: np.ndarray
    device_start: np.ndarray  # only the copies with a device interval
    device_end: np.ndarray


def run_lanes(run):
    """The run's lanes, top to bottom: one per worker (workers without a copy keep an empty
    lane: a worker that did nothing is a finding). Helper threads' lanes go after these."""
    c = run.copies
    workers = sorted(set(range(run.threads)) | set(c.worker.tolist()))
    has_device = c.has_device()
    lanes = []
    for w in workers:
        mine = c.worker == w
        dev = mine & has_device
        lanes.append(Lane(name=f"worker {w}", gid=f"lane-run{run.index}-worker{w}",
                          hue=style.colour(w), host_start=c.host_start[mine],
                          host_end=c.host_end[mine], warmup=c.warmup[mine],
                          device_start=c.device_start[dev], device_end=c.device_end[dev]))
    return lanes + helper_lanes(run)


def helper_lanes(run):
    """One lane per staging helper thread: its busy spans (taking, copying and waiting for its
    chunks) as bars, idle time empty. Helpers of several processes are told apart by pid."""
    helpers = run.extra.get("helper_threads") or []
    pids = {h.get("pid") for h in helpers}
    lanes = []
    for k, h in enumerate(helpers):
        busy = np.array(h.get("busy") or [], dtype=np.int64).reshape(-1, 2)
        name = f"helper {h.get('worker', k)}"
        if len(pids) > 1:
            name += f" (pid {h.get('pid')})"
        lanes.append(Lane(name=name, gid=f"lane-run{run.index}-helper{k}", hue=style.NEUTRAL,
                          host_start=busy[:, 0], host_end=busy[:, 1],
                          warmup=np.zeros(len(busy), dtype=bool),
                          device_start=np.empty(0, dtype=np.int64),
                          device_end=np.empty(0, dtype=np.int64)))
    return lanes


def merge_to_pixels(start, end, origin, ns_per_px):
    """Intervals [start, end) (ns) as the spans of pixel columns they cover: (x0, width) pairs in
    ns since `origin`. Every interval covers at least its first column, as a drawn bar would."""
    if len(start) == 0:
        return np.empty(0), np.empty(0)
    first = np.maximum(np.floor((start - origin) / ns_per_px).astype(np.int64), 0)
    last = np.maximum(np.ceil((end - origin) / ns_per_px).astype(np.int64), first + 1)
    edges = np.zeros(int(last.max()) + 2, dtype=np.int64)
    np.add.at(edges, first, 1)
    np.add.at(edges, last, -1)
    covered = np.cumsum(edges)[:-1] > 0
    change = np.diff(np.concatenate(([0], covered.astype(np.int8), [0])))
    begins, ends = np.flatnonzero(change == 1), np.flatnonzero(change == -1)
    return begins * ns_per_px, (ends - begins) * ns_per_px


def _spans(start, end, origin, ns_per_px, merge):
    if merge:
        return merge_to_pixels(start, end, origin, ns_per_px)
    return (start - origin).astype(float), (end - start).astype(float)


def _bars(ax, y, height, spans, div, gid, **style_kw):
    x0, width = spans
    if len(x0) == 0:
        return
    bars = ax.broken_barh(np.column_stack((x0 / div, width / div)), (y - height / 2, height),
                          **style_kw)
    bars.set_gid(gid)


def _shades(any_device):
    """How much white goes into a lane's hue: a host call is light where device transfers are
    drawn inside it, stronger where it is all there is (host backend)."""
    return {"host": 0.7, "warmup": 0.85} if any_device else {"host": 0.4, "warmup": 0.7}


def _draw_lane(ax, y, lane, origin, div, ns_per_px, merge, shades):
    # The lane's own band (every other one faintly shaded): one SVG group per lane, copies or not.
    band = ax.axhspan(y - 0.5, y + 0.5, color="#f4f4f4" if y % 2 else "none", linewidth=0,
                      zorder=0)
    band.set_gid(lane.gid)
    # A thin white edge keeps back-to-back copies apart; merged spans have no copies to part.
    edge = {"linewidth": 0 if merge else 0.6, "edgecolors": "white"}
    measured = ~lane.warmup
    host = _spans(lane.host_start[measured], lane.host_end[measured], origin, ns_per_px, merge)
    warm = _spans(lane.host_start[lane.warmup], lane.host_end[lane.warmup], origin, ns_per_px,
                  merge)
    device = _spans(lane.device_start, lane.device_end, origin, ns_per_px, merge)
    _bars(ax, y, HOST_HEIGHT, host, div, lane.gid + "-host",
          facecolors=style.tint(lane.hue, shades["host"]), **edge)
    # The hatch takes the edge colour.
    _bars(ax, y, HOST_HEIGHT, warm, div, lane.gid + "-warmup",
          facecolors=style.tint(lane.hue, shades["warmup"]), hatch="////", linewidth=0.6,
          edgecolors=style.tint(lane.hue, 0.3))
    _bars(ax, y, DEVICE_HEIGHT, device, div, lane.gid + "-device", facecolors=lane.hue, **edge)


def _panel_title(run):
    warm = int(np.count_nonzero(run.copies.warmup))
    aggregate, p50 = run.statistic("aggregate_Bps"), run.statistic("per_copy_Bps", "p50")
    return (f"run {run.title}: {run.measured} copies (+{warm} warm-up) of "
            f"{style.size_text(run.bytes_per_copy)}; aggregate "
            f"{style.gbps_text(aggregate / 1e9 if aggregate else None)}, per-copy p50 "
            f"{style.gbps_text(p50 / 1e9 if p50 else None)}")


def _draw_panel(ax, run, lanes, origin, div, ns_per_px, shades):
    """One run's lanes. Returns a note when its copies were merged at pixel resolution."""
    merge = any(len(lane.host_start) > AXES_PX / 2 for lane in lanes)
    for y, lane in enumerate(lanes):
        _draw_lane(ax, y, lane, origin, div, ns_per_px, merge, shades)
    ax.set_yticks(range(len(lanes)), [lane.name for lane in lanes], fontsize=8)
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_title(_panel_title(run), fontsize=9, loc="left")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    if merge:
        return (f"run {run.index}: {len(run.copies)} copies drawn merged at pixel resolution "
                f"(1 px = {style.duration_text(ns_per_px)})")
    return None


def _legend(ax, any_device, shades, any_helper):
    from matplotlib.patches import Patch

    grey = "#666666"  # the shades' meaning; each worker has its own hue
    handles = [Patch(facecolor=style.tint(grey, shades["host"]), label="host call (measured copy)"),
               Patch(facecolor=style.tint(grey, shades["warmup"]), hatch="////",
                     edgecolor=style.tint(grey, 0.3), label="host call (warm-up copy)")]
    if any_device:
        handles.append(Patch(facecolor=grey, label="device transfer (device-side timestamps)"))
    if any_helper:
        handles.append(Patch(facecolor=style.tint(style.NEUTRAL, shades["host"]),
                             label="staging helper busy"))
    style.legend_row(ax, handles)


def lane_count(run):
    """How many lanes run_lanes(run) makes, without making them."""
    workers = set(range(run.threads)) | set(np.unique(run.copies.worker).tolist())
    return len(workers) + len(run.extra.get("helper_threads") or [])


def _cut_lanes(run, lanes):
    """The run's first LANES_PER_PAGE lanes, and a note when there were more."""
    if len(lanes) <= LANES_PER_PAGE:
        return lanes, None
    return lanes[:LANES_PER_PAGE], (f"run {run.index}: {len(lanes)} lanes, the first "
                                    f"{LANES_PER_PAGE} drawn (a timeline page holds at most "
                                    f"{LANES_PER_PAGE}); --run with fewer threads draws them all")


def draw_page(runs, scenario, backend):
    """One figure: a panel per run, every panel on the same time axis (since each run's first
    call). Returns (figure, notes)."""
    cut = [_cut_lanes(r, run_lanes(r)) for r in runs]
    lanes = [run_lanes_ for run_lanes_, _ in cut]
    any_device = any(len(lane.device_start) for run_lanes_ in lanes for lane in run_lanes_)
    shades = _shades(any_device)
    origins = [int(r.copies.host_start.min()) for r in runs]
    span = max(1, max(int(max(r.copies.host_end.max(), r.copies.device_end.max())) - o
                      for r, o in zip(runs, origins)))
    div, unit = style.time_unit(span)
    ns_per_px = span / AXES_PX
    heights = [0.55 + LANE_IN * len(ls) for ls in lanes]
    legend_in = style.legend_height(["x" * 40] * 3)  # three entries of about 40 characters
    fig = style.new_figure(style.WIDTH_IN, sum(heights) + legend_in + 0.9)
    grid = fig.subplots(len(runs) + 1, 1, squeeze=False,
                        gridspec_kw={"height_ratios": [legend_in] + heights})[:, 0]
    legend_ax, axes = grid[0], grid[1:]
    notes = [note for _, note in cut if note]
    for ax, run, run_lanes_, origin in zip(axes, runs, lanes, origins):
        if ax is not axes[0]:
            ax.sharex(axes[0])
        note = _draw_panel(ax, run, run_lanes_, origin, div, ns_per_px, shades)
        notes += [note] if note else []
        ax.tick_params(labelbottom=ax is axes[-1])
    axes[-1].set_xlim(0, span * 1.01 / div)
    axes[-1].set_xlabel(f"time since the run's first call ({unit})")
    device_note = "; light without dark: the call is waiting" if any_device else ""
    fig.suptitle(f"{scenario}: timeline, one lane per worker ({backend} backend){device_note}",
                 fontsize=11)
    helpers = [h for r in runs for h in (r.extra.get("helper_threads") or [])]
    dropped = sum(int(h.get("busy_dropped") or 0) for h in helpers)
    if dropped:
        notes.append(f"{dropped} busy spans of helper threads beyond the recorded limit not drawn")
    _legend(legend_ax, any_device, shades, bool(helpers))
    style.footnote(fig, notes)
    return fig, notes


def pages(runs):
    """The runs split into pages, in order: at most RUNS_PER_PAGE panels and LANES_PER_PAGE
    lanes a page (a run with more lanes than that alone on its page, cut by draw_page)."""
    out, lanes = [], 0
    for run in runs:
        n = min(lane_count(run), LANES_PER_PAGE)
        if out and len(out[-1]) < RUNS_PER_PAGE and lanes + n <= LANES_PER_PAGE:
            out[-1].append(run)
            lanes += n
        else:
            out.append([run])
            lanes = n
    return out
