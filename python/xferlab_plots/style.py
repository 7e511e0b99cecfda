"""Colours, units and file writing shared by every figure.

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies);
what must survive grey-scale print is carried by lightness and hatching, not hue: a host call is
a light tint, the device transfer inside it the full colour, a warm-up is hatched.
"""
import os

import numpy as np

PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
NEUTRAL = "#555555"
DPI = 100  # PNG pixels per inch: figures are sized in inches for about 1100 px wide
WIDTH_IN = 11.0


def colour(i):
    return PALETTE[i % len(PALETTE)]


def tint(hex_colour, amount):
    """`hex_colour` mixed with white: amount 0 is the colour, 1 is white."""
    rgb = np.array([int(hex_colour[k : k + 2], 16) for k in (1, 3, 5)], dtype=float) / 255.0
    return tuple(rgb + (1.0 - rgb) * amount)


def time_unit(span_ns):
    """(divisor, name) for a time axis that spans `span_ns`."""
    if span_ns >= 2e9:
        return 1e9, "s"
    if span_ns >= 2e6:
        return 1e6, "ms"
    if span_ns >= 2e3:
        return 1e3, "µs"
    return 1.0, "ns"


def duration_text(ns):
    div, unit = time_unit(ns * 2)  # "1.5 ms" rather than "1500 µs"
    return f"{ns / div:.3g} {unit}"


def size_text(n):
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def gbps_number(value):
    """GB/s as the report prints them: two decimals, three significant digits below 1."""
    return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def gbps_text(value):
    return "-" if value is None else f"{gbps_number(value)} GB/s"


def new_figure(width_in, height_in):
    """A Figure on the Agg canvas: no display and no pyplot state (matplotlib's object API)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width_in, height_in), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


LEGEND_IN = 0.22  # height of a legend's line of entries


def legend_columns(labels):
    """As many columns as labels of this length fit across the figure (at most 4)."""
    longest = max((len(t) for t in labels), default=0)
    return max(1, min(4, len(labels), int(150 // max(longest + 8, 1))))


def legend_height(labels):
    """Inches for a legend of these labels, in legend_columns columns."""
    return LEGEND_IN * (1 + -(-len(labels) // legend_columns(labels)))


def legend_row(ax, handles, labels=None):
    """A legend in a row of its own (an axes without axis): the layout makes room for it, and
    it never covers data. (matplotlib 3.6, Debian 12's, has no legend loc "outside".)"""
    ax.axis("off")
    if labels is None:
        labels = [h.get_label() for h in handles]
    if handles:
        ax.legend(handles, labels, loc="center", ncols=legend_columns(labels), fontsize=8,
                  frameon=False)


def footnote(fig, lines):
    """Small text under the figure: what was left out or merged, said on the figure itself."""
    if lines:
        fig.supxlabel("\n".join(lines), fontsize=8, color=NEUTRAL, ha="left", x=0.01)


def save(fig, path, fmt):
    """Writes the figure atomically (a temporary file in the same folder, then rename), so that
    a reader never sees half a picture. SVG and PNG carry no date: the same results draw the
    same bytes."""
    tmp = f"{path}.tmp-{os.getpid()}"
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        # Created here, exclusively and never through a link: a link planted under the
        # temporary name in a shared folder would otherwise have savefig write where it points.
        # A leftover of a killed process of this pid is removed (the name only) first.
        if os.path.lexists(tmp):
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            fig.savefig(out, format=fmt, dpi=DPI, metadata=metadata)
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    return path
