"""results.json as the figures read it: the runs, their copies as arrays, and which runs to draw.
A run's copies come from its "records" in the text, or, as xferlab hands them over, from a
column per record key the figures need (COLUMNS): a few bytes a copy instead of a Python dict.

Only the file's documented keys are read (docs/reading-reports.md, "results.json"); nothing here
knows xferlab's C++ types. The statistics come from each run's "analysis" (xferlab hands over
the file re-analysed by the running build, so the figures agree with `xferlab report`); the
per-copy values of the strips and boxes are recomputed from the records with the same formula
(bytes / host-timed call).
"""
import json
from dataclasses import dataclass, field

import numpy as np

from .errors import PlotError


@dataclass
class Copies:
    """One run's records, one array entry per copy (warm-up copies included), host clock ns."""

    worker: np.ndarray
    warmup: np.ndarray
    size: np.ndarray
    host_start: np.ndarray
    host_end: np.ndarray
    device_start: np.ndarray  # -1 where the backend recorded no device interval
    device_end: np.ndarray

    def __len__(self):
        return len(self.worker)

    def has_device(self):
        """Copies whose device interval is known (CUDA backend: CUPTI or events)."""
        return (self.device_start >= 0) & (self.device_end >= self.device_start)

    def per_copy_gbps(self):
        """Host-timed per-copy GB/s (10^9 B/s) of the measured copies, as the report has them."""
        measured = ~self.warmup
        duration = (self.host_end - self.host_start)[measured]
        size = self.size[measured]
        keep = duration > 0
        return size[keep] / duration[keep]  # bytes per ns = GB/s


@dataclass
class Run:
    index: int
    label: str
    status: str
    launcher: str
    backend: str
    threads: int
    bytes_per_copy: int
    errors: list
    analysis: dict
    sweep_point: dict
    overrides: dict
    settings: dict
    copies: Copies
    extra: dict = field(default_factory=dict)  # the run's whole JSON object, for later hooks

    @property
    def trial(self):
        """1-based trial number (scenario.trials); 1 in files written before trials."""
        return int(self.extra.get("trial") or 1)

    @property
    def position(self):
        """The run's place in one trial's plan ([[run]] x [sweep] order), equal for its trials;
        the index in files written before trials (where the two were the same)."""
        value = self.settings.get("position")
        return int(value) if isinstance(value, int) else self.index

    @property
    def title(self):
        """How figures name the run: its index and label, its trial when the label has several
        (as the report's table names it), and its status unless ok."""
        text = f"{self.index}: {self.label}"
        if "trial_group" in self.extra:
            text += f" (trial {self.trial})"
        return text if self.status == "ok" else f"{text} ({self.status})"

    @property
    def measured(self):
        return int(np.count_nonzero(~self.copies.warmup))

    def statistic(self, key, field_name=None):
        """A number from the run's analysis (None when absent or null): statistic("aggregate_Bps")
        or statistic("per_copy_Bps", "p50")."""
        value = self.analysis.get(key)
        if field_name is not None:
            value = value.get(field_name) if isinstance(value, dict) else None
            if isinstance(value, dict):
                value = None
        return float(value) if isinstance(value, (int, float)) else None


@dataclass
class Results:
    scenario: str
    backend: str
    runs: list
    sweep_keys: list  # [sweep] keys in file order
    run_tables: int  # number of [[run]] tables: run i belongs to table i % run_tables
    baseline_run: object  # index of the baseline run, or None


# The record keys the figures read, and the type each becomes. xferlab hands a run's copies over
# in this form (app/embed/plots.cpp: one bytearray per key, these types in native byte order).
COLUMNS = {
    "worker": np.int64,
    "warmup": np.bool_,
    "size_bytes": np.float64,
    "host_start_ns": np.int64,
    "host_end_ns": np.int64,
    "device_start_ns": np.int64,
    "device_end_ns": np.int64,
}


def columns_of_records(records):
    """A run's "records" (results.json's list of objects) as the columns xferlab hands over."""
    return {key: np.fromiter((r[key] for r in records), dtype=dtype, count=len(records))
            for key, dtype in COLUMNS.items()}


def _copies(columns):
    """Copies from a run's columns: arrays, or buffers of COLUMNS' types read in place."""
    c = {key: np.frombuffer(columns[key], dtype=dtype) for key, dtype in COLUMNS.items()}
    if len({len(a) for a in c.values()}) > 1:  # xferlab's bug, not the file's: not a PlotError
        raise RuntimeError(f"columns of different lengths: { {k: len(a) for k, a in c.items()} }")
    return Copies(worker=c["worker"], warmup=c["warmup"], size=c["size_bytes"],
                  host_start=c["host_start_ns"], host_end=c["host_end_ns"],
                  device_start=c["device_start_ns"], device_end=c["device_end_ns"])


def _run(j, columns):
    settings = j.get("settings") or {}
    return Run(
        index=int(j["index"]),
        label=str(j["label"]),
        status=str(j["status"]),
        launcher=str(j["launcher"]),
        backend=str(j["backend"]),
        threads=int(j["threads"]),
        bytes_per_copy=int(j["bytes_per_copy"]),
        errors=list(j.get("errors") or []),
        analysis=j.get("analysis") or {},
        sweep_point=dict(j.get("sweep_point") or {}),
        overrides=dict(settings.get("overrides") or {}),
        settings=settings,
        copies=_copies(columns if columns is not None else columns_of_records(j["records"])),
        extra=j,
    )


def load(text, columns=None):
    """Results from the text of a results.json (bytes or str). PlotError when it is not one.
    `columns`: each run's copies (a dict per run in "runs" order, COLUMNS' keys) where the text
    leaves them out; None: the text's own "records"."""
    try:
        doc = json.loads(text)
        scenario = doc.get("scenario") or {}
        runs = [_run(r, None if columns is None else columns[i])
                for i, r in enumerate(doc["runs"])]
    except (ValueError, KeyError, TypeError) as e:
        raise PlotError(f"not an xferlab results.json: {type(e).__name__}: {e}") from None
    # Trials (scenario.trials): each trial is a run; its group's statistics across trials go with
    # every trial's run (the aggregate figure draws the group's interval).
    by_index = {r.index: r for r in runs}
    for group in doc.get("trial_groups") or []:
        if len(group.get("runs") or []) < 2:
            continue
        for i in group["runs"]:
            if i in by_index:
                by_index[i].extra["trial_group"] = group
    baseline = doc.get("baseline_run")  # a position in "runs", or null
    if not (isinstance(baseline, int) and 0 <= baseline < len(runs)):
        baseline = None
    return Results(
        scenario=str((scenario.get("scenario") or {}).get("name", "")),
        backend=", ".join(sorted({r.backend for r in runs if r.backend})),
        runs=runs,
        sweep_keys=[s["key"] for s in scenario.get("sweep") or [] if "key" in s],
        run_tables=max(1, len(scenario.get("run") or [])),
        baseline_run=None if baseline is None else runs[baseline].index,
    )


@dataclass
class Row:
    """What the aggregate and distribution figures draw as one row: a label's trials together
    (scenario.trials), or one run. The trials' own values stay visible as points."""

    runs: list  # the trials drawn, in trial order; one run when the label has no trials here
    interval: object = None  # (low, high) B/s, the 95% interval of the mean over all trials

    @property
    def first(self):
        return self.runs[0]

    @property
    def is_trials(self):
        return len(self.runs) > 1

    @property
    def title(self):
        if not self.is_trials:
            return self.first.title
        text = f"{self.first.label} ({len(self.runs)} trials: runs {index_list(self.runs)}"
        not_ok = [r for r in self.runs if r.status != "ok"]
        if not_ok:
            text += f"; {len(not_ok)} not ok: {index_list(not_ok)}"
        return text + ")"

    def values(self, key, field_name=None):
        """The statistic of every ok trial that has it (B/s), in trial order: the trials the
        verdicts compare (a failed trial's partial aggregate is not one of them)."""
        found = [r.statistic(key, field_name) for r in self.runs if r.status == "ok"]
        return [v for v in found if v is not None]

    def median(self, key, field_name=None):
        """The median over the trials: the figure's bar, as the verdicts' table's median."""
        values = self.values(key, field_name)
        return float(np.median(values)) if values else None

    def contains(self, run_index):
        return any(r.index == run_index for r in self.runs)


def index_list(runs, limit=6):
    shown = ", ".join(str(r.index) for r in runs[:limit])
    return shown + (", ..." if len(runs) > limit else "")


def rows(runs):
    """One Row per label with trials (its drawn trials in trial order), one per other run, in
    plan order (as the report lists them, whatever scenario.order ran them in). The interval
    over trials is the file's, kept only when the row has every trial it was computed from
    (the label's ok trials; --run can leave some out)."""
    out, by_group = [], {}
    for run in runs:
        group = run.extra.get("trial_group")
        if group is None:
            out.append(Row([run]))
            continue
        key = id(group)
        if key not in by_group:
            by_group[key] = Row([])
            out.append(by_group[key])
        by_group[key].runs.append(run)
    for row in out:
        row.runs.sort(key=lambda r: (r.trial, r.index))
        group = row.first.extra.get("trial_group") or {}
        low, high = group.get("mean_ci_low"), group.get("mean_ci_high")
        everyone = len(row.values("aggregate_Bps")) == len(group.get("aggregate_Bps") or [])
        if row.is_trials and everyone and low is not None and high is not None:
            row.interval = (float(low), float(high))
    out.sort(key=lambda row: (row.first.position, row.first.trial, row.first.index))
    return out


def _run_list(runs, limit=8):
    names = [f"{r.index} ({r.label})" for r in runs[:limit]]
    more = f", ... ({len(runs)} runs)" if len(runs) > limit else ""
    return ", ".join(names) + more


def select(results, wanted):
    """The runs named by --run (an index or a label), in plan order; all when none is named."""
    if not wanted:
        return list(results.runs)
    chosen = set()
    for item in wanted:
        matches = [r for r in results.runs if str(r.index) == item.strip() or r.label == item]
        if not matches:
            raise PlotError(f"--run {item}: no run with that index or label; the runs are "
                            f"{_run_list(results.runs)}")
        chosen.update(r.index for r in matches)
    return [r for r in results.runs if r.index in chosen]


def drawable(runs):
    """(runs with at least one copy, one note for each run left out). PlotError when none has
    a copy: a figure of nothing would say nothing."""
    kept, notes = [], []
    for r in runs:
        if len(r.copies):
            kept.append(r)
            continue
        why = f"run {r.index} ({r.label}): {r.status}, no copies"
        if r.errors and r.errors[0].strip():
            why += f" ({r.errors[0].strip().splitlines()[-1]})"  # a traceback's last line
        notes.append(why + ": not drawn")
    if not kept:
        raise PlotError("nothing to draw: " + "; ".join(n[: -len(": not drawn")] for n in notes))
    return kept, notes
