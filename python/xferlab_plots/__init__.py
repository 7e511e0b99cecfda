"""xferlab's figures, drawn with matplotlib (Agg, no display) from the text of a results.json.

xferlab calls draw() inside its embedded interpreter (app/embed/plots.cpp) for `xferlab plot`
and for `run` with output.plots = true. Figures: the timeline (timeline.py), the per-copy
distribution (distribution.py), the aggregate per run (aggregate.py), one figure per swept
key (sweep.py) and, where threads.between varies, hand-off rate and per-copy p50 against the
measured gap (handoff.py). PlotError carries a one-line message for the user; any other exception is a bug.
"""
import contextlib
import io
import os
import warnings

from .errors import MissingDependency, PlotError

FORMATS = ("png", "svg")


def _require_matplotlib():
    try:
        import matplotlib  # noqa: F401  (only whether it imports)
    except ImportError as e:
        raise MissingDependency(f"matplotlib cannot be imported ({e}): install the Debian "
                                "package python3-matplotlib") from None


# The per-run figures (a timeline panel, a distribution row and an aggregate bar per run) are
# drawn for at most this many runs: a 1,500-run sweep took 148 s and 3.2 GB, then matplotlib
# refused a distribution figure of 1100x75204 pixels. Past it only the figures that summarise
# the runs (sweeps, hand-off) are drawn, and --run chooses the runs to see one by one.
MAX_RUNS_PER_RUN_FIGURES = 200


def too_many_runs(runs, pages):
    """Why the per-run figures of `runs` (timeline `pages`) are not drawn, or None."""
    from . import timeline

    if len(runs) <= MAX_RUNS_PER_RUN_FIGURES and len(pages) <= timeline.MAX_PAGES:
        return None
    return (f"{len(runs)} runs selected ({len(pages)} timeline pages): the timeline, "
            f"distribution and aggregate figures draw each run as a panel or row, for at most "
            f"{MAX_RUNS_PER_RUN_FIGURES} runs and {timeline.MAX_PAGES} timeline pages; choose "
            f"the runs to draw with --run (an index or a label, repeatable)")


def _draw_all(text, columns, out_dir, fmt, wanted, prefix):
    from . import handoff, results, style, sweep, timeline

    data = results.load(text, columns)
    runs, notes = results.drawable(results.select(data, wanted))
    name = data.scenario or "results"
    files = []

    def save(fig, stem):
        files.append(style.save(fig, os.path.join(out_dir, f"{prefix}{stem}.{fmt}"), fmt))

    measured = [r for r in runs if r.measured]
    pages = timeline.pages(runs)
    skipped = too_many_runs(runs, pages)
    if skipped is None:
        _draw_per_run(runs, measured, pages, name, data, save, notes)
    for key, lines in sweep.swept(data, measured):
        fig, sweep_notes = sweep.draw(key, lines, name)
        notes += sweep_notes
        save(fig, f"sweep-{key}")
    if handoff.wanted(measured):
        fig, handoff_notes = handoff.draw(measured, name)
        notes += handoff_notes
        save(fig, "handoff")
    if skipped is not None:
        if not files:
            raise PlotError(skipped)
        notes.append(skipped)
    return files, notes


def _draw_per_run(runs, measured, pages, name, data, save, notes):
    """The timeline pages, the distribution and the aggregate figures."""
    from . import aggregate, distribution, timeline

    for page, page_runs in enumerate(pages, start=1):
        fig, page_notes = timeline.draw_page(page_runs, name, data.backend)
        notes += page_notes
        save(fig, "timeline" if page == 1 else f"timeline-{page}")
    if measured:
        for stem, (fig, fig_notes) in (
                ("distribution", distribution.draw(measured, name)),
                ("aggregate", aggregate.draw(measured, name, data.baseline_run))):
            notes += fig_notes
            save(fig, stem)
    else:
        notes.append("no measured copy (warm-ups only): no distribution or aggregate figure")


def draw(text, out_dir, fmt="png", wanted=(), prefix="", columns=None):
    """Draws every figure of the results in `text` into `out_dir` (which exists) as
    <prefix><figure>.<fmt>. `wanted`: --run selections (an index or a label; empty: every run).
    `columns`: each run's copies as results.load takes them (xferlab passes them so, the text's
    runs then carry no records); None: the text's own records.
    Returns {"files": [paths], "notes": [lines]}; raises PlotError for bad input."""
    if fmt not in FORMATS:
        raise PlotError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    # Whatever matplotlib says (font cache, warnings) comes back as notes, not as payload output.
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        _require_matplotlib()
        import matplotlib

        # Text stays text in SVG; fixed ids: the same results give the same bytes.
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "xferlab"}):
            files, notes = _draw_all(text, columns, out_dir, fmt, list(wanted), prefix)
    notes += [f"matplotlib: {w.message}" for w in caught]
    notes += [line for line in captured.getvalue().splitlines() if line.strip()]
    return {"files": files, "notes": notes}
