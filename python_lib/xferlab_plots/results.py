"""results.json as the figures read it: the runs, their copies as arrays, and which runs to draw.

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
    def title(self):
        """How figures name the run: its index and label, and its status unless ok."""
        text = f"{self.index}: {self.label}"
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


def _array(records, key, dtype):
    return np.fromiter((r[key] for r in records), dtype=dtype, count=len(records))


def _copies(records):
    return Copies(
        worker=_array(records, "worker", np.int64),
        warmup=_array(records, "warmup", bool),
        size=_array(records, "size_bytes", np.float64),
        host_start=_array(records, "host_start_ns", np.int64),
        host_end=_array(records, "host_end_ns", np.int64),
        device_start=_array(records, "device_start_ns", np.int64),
        device_end=_array(records, "device_end_ns", np.int64),
    )


def _run(j):
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
        copies=_copies(j["records"]),
        extra=j,
    )


def load(text):
    """Results from the text of a results.json (bytes or str). PlotError when it is not one."""
    try:
        doc = json.loads(text)
        scenario = doc.get("scenario") or {}
        runs = [_run(r) for r in doc["runs"]]
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
