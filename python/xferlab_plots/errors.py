"""The errors xferlab reports in one line (anything else is a bug and shows its traceback)."""


class PlotError(Exception):
    """Bad input: a file that is not a results.json, an unknown --run, nothing to draw."""


class MissingDependency(PlotError):
    """matplotlib (Debian: python3-matplotlib) cannot be imported."""
