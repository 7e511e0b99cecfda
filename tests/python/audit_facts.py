"""The facts the explanations audit derives its findings from: each run's quantities recomputed
from its raw records (RunFacts), and what the plan's runs say together (Plan: trials, switches,
baselines, verdicts across trials, the noise within a run, scaling). Every definition is the one
docs/reading-reports.md gives ("The numbers, and how each is computed", "Words used below",
"Verdicts across trials", "Baseline and noise within one run"); nothing is read from the
analysis xferlab wrote. Standard library only.
"""

import dataclasses
import functools
import json
import math

from audit_stats import (covered, cv, jain, mann_whitney_p, mean_concurrency, median,
                         noise_bound, overlaps, peak, share_inside, shift_interval,
                         smallest_p, standard_error, union, within)

# docs: "a run has one [gil] where its workers take the GIL: launcher python, python-subinterp
# and host+gil always, python-ft never, process and mpi only with a payload".
GIL_ALWAYS = {"python", "python-subinterp", "host+gil"}
GIL_WITH_PAYLOAD = {"process", "mpi"}
MPI_LAUNCHERS = {"mpi"}


@dataclasses.dataclass(frozen=True)
class Rec:
    order: int          # position in the run's records (ties keep it)
    worker: int
    warmup: bool
    failed: bool
    device: int
    bytes: int
    hs: int
    he: int
    ds: int
    de: int
    context: int
    pid: int
    tid: int = 0
    source: int = 0         # a payload's timed block (0: xferlab's own copy)
    host_node: int = -1     # the node most of its sampled host pages were on (-1: not sampled)
    copy_kind: str = ""     # a watched copy's ("HtoD", ...); "" for xferlab's own copies
    src_kind: str = ""
    dst_kind: str = ""

    @property
    def timed(self):
        return self.ds >= 0 and self.de >= self.ds

    @property
    def measured(self):
        return not self.warmup and not self.failed

    @property
    def call(self):
        return (self.hs, self.he)

    @property
    def transfer(self):
        return (self.ds, self.de)

    @property
    def moved(self):
        """The interval that moved the bytes: the transfer when known, else the call."""
        return self.transfer if self.timed else self.call


def rec_of(order, raw):
    return Rec(order=order, worker=raw.get("worker", 0), warmup=bool(raw.get("warmup", False)),
               failed=bool(raw.get("failed", False)), device=raw.get("device", -1),
               bytes=raw.get("size_bytes", 0), hs=raw["host_start_ns"], he=raw["host_end_ns"],
               ds=raw.get("device_start_ns", -1), de=raw.get("device_end_ns", -1),
               context=raw.get("context", 0), pid=raw.get("pid", 0), tid=raw.get("tid", 0),
               source=raw.get("source", 0), host_node=raw.get("host_node", -1),
               copy_kind=raw.get("copy_kind", ""), src_kind=raw.get("src_kind", ""),
               dst_kind=raw.get("dst_kind", ""))


def flatten(obj, prefix=""):
    out = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


@dataclasses.dataclass
class DeviceFacts:
    """One device of a run (docs: per device D)."""
    device: int
    workers: int            # workers with a measured device-timed copy on D
    copies: int             # measured device-timed copies on D
    concurrency: float      # of those copies' transfers
    peak_in_flight: int     # transfers on D overlapping the window, warm-ups included
    host_concurrency: float  # of the measured calls on D
    call_p50: float
    wait_p50: float
    wait_busy: float        # share of the summed waits with a transfer on D


@dataclasses.dataclass
class Handoff:
    """A device's hand-off sequence (docs: "device sequence")."""
    device: int
    device_clock: bool
    workers: list           # workers in the sequence
    rate: float
    mean_run_length: float
    runs: dict              # worker -> (copies in the sequence, its runs there)
    contexts: int = 0
    context_peak: int = 0
    context_workers: int = 0
    copies: int = 0         # measured transfers in the sequence
    warmup_copies: int = 0  # warm-ups in it (those overlapping the window)


class RunFacts:
    """Every quantity a rule reads, computed from one run's raw records."""

    def __init__(self, raw, position):
        self.raw = raw
        self.position = position
        self.index = raw.get("index", position)
        self.label = raw.get("label", "")
        self.launcher = raw.get("launcher", "")
        self.threads = raw.get("threads", 0)
        self.status = raw.get("status", "ok")
        self.settings = raw.get("settings") or {}
        self.trial = raw.get("trial") or self.settings.get("trial") or 1
        self.base_label = raw.get("base_label", self.settings.get("base_label", ""))
        self.sweep_point = raw.get("sweep_point") or {}
        self.plan_position = self.settings.get("position")
        if self.plan_position is None:
            self.plan_position = self.index
        key = raw.get("scaling_key") or ""
        self.scaling_key_text = key
        self.scaling_key = flatten(json.loads(key)) if key else None
        self.records = [rec_of(i, r) for i, r in enumerate(raw.get("records") or [])]
        self.host_activity = raw.get("host_activity")
        self.notes = list(raw.get("notes") or [])
        self.errors = list(raw.get("errors") or [])

    # --- settings
    @property
    def gil(self):
        """The run's gil where its workers take the GIL, else None."""
        has_payload = bool(self.settings.get("payload"))
        if self.launcher in GIL_ALWAYS or (self.launcher in GIL_WITH_PAYLOAD and has_payload):
            return self.settings.get("gil") or "release"
        return None

    @property
    def between(self):
        return (self.settings.get("threads") or {}).get("between", "none")

    @property
    def context_setting(self):
        return (self.settings.get("transfer") or {}).get("context", "primary")

    # --- the measured copies and the window
    @functools.cached_property
    def measured(self):
        return [r for r in self.records if r.measured]

    @property
    def copies(self):
        return len(self.measured)

    @functools.cached_property
    def window(self):
        if not self.measured:
            return None
        return (min(r.hs for r in self.measured), max(r.he for r in self.measured))

    @property
    def window_ns(self):
        return self.window[1] - self.window[0] if self.window else 0

    @functools.cached_property
    def calls_in_flight(self):
        """Every record whose call overlaps the window, warm-ups and failed blocks included."""
        w = self.window
        return [r for r in self.records if w and overlaps(r.call, w)]

    @functools.cached_property
    def host_peak_in_flight(self):
        return peak([r.call for r in self.calls_in_flight])

    @functools.cached_property
    def call_ns(self):
        return [r.he - r.hs for r in self.measured]

    @functools.cached_property
    def call_p50(self):
        return median(self.call_ns)

    @functools.cached_property
    def per_copy_bps(self):
        return [r.bytes * 1e9 / (r.he - r.hs) for r in self.measured if r.he > r.hs]

    @functools.cached_property
    def per_copy_p50(self):
        return median(self.per_copy_bps)

    @functools.cached_property
    def start_spread(self):
        """Latest minus earliest first call of the workers, every record counted."""
        firsts = {}
        for r in self.records:
            firsts[r.worker] = min(firsts.get(r.worker, r.hs), r.hs)
        return max(firsts.values()) - min(firsts.values()) if firsts else 0

    @functools.cached_property
    def idle_fraction(self):
        """The share of the window with no call in flight (every record's call)."""
        w = self.window
        if not w or w[1] <= w[0]:
            return 0.0
        busy = covered(union(r.call for r in self.records), w)
        return 1 - busy / (w[1] - w[0])

    # --- bytes and the aggregate
    @functools.cached_property
    def window_bytes(self):
        w = self.window
        return sum(r.bytes * share_inside(r.moved, w) for r in self.records) if w else 0.0

    @functools.cached_property
    def aggregate(self):
        return self.window_bytes / (self.window_ns / 1e9) if self.window_ns > 0 else 0.0

    @functools.cached_property
    def warmups_in_window(self):
        w = self.window
        if not w:
            return 0
        return sum(1 for r in self.records if r.warmup and r.moved[1] > r.moved[0]
                   and share_inside(r.moved, w) > 0)

    @property
    def measured_ok(self):
        """A trial that counts in the verdicts: ok, with measured copies and an aggregate."""
        return self.status == "ok" and self.copies > 0 and self.aggregate > 0

    # --- workers
    @functools.cached_property
    def workers(self):
        """Planned workers 0..max(threads, highest measured worker + 1) - 1."""
        top = max((r.worker for r in self.measured), default=-1)
        return list(range(max(self.threads, top + 1)))

    @functools.cached_property
    def copies_by_worker(self):
        out = {w: [] for w in self.workers}
        for r in self.measured:
            if r.worker >= 0:
                out.setdefault(r.worker, []).append(r)
        return {w: sorted(rs, key=lambda r: (r.hs, r.order)) for w, rs in out.items()}

    def workers_with(self, copies):
        return sum(1 for rs in self.copies_by_worker.values() if len(rs) >= copies)

    def own_device(self, worker):
        """The device of the worker's first measured copy (None without one)."""
        rs = self.copies_by_worker.get(worker) or []
        return rs[0].device if rs else None

    # --- gaps
    @functools.cached_property
    def gaps_by_worker(self):
        """Call start minus the same worker's previous return, before each measured call that
        has a call before it (warm-ups count as the call before)."""
        by_worker = {}
        for r in self.records:
            by_worker.setdefault(r.worker, []).append(r)
        out = {}
        for w, rs in by_worker.items():
            rs = sorted(rs, key=lambda r: (r.hs, r.order))
            gaps = [b.hs - a.he for a, b in zip(rs, rs[1:]) if b.measured]
            if gaps:
                out[w] = gaps
        return out

    @functools.cached_property
    def gaps(self):
        return [g for w in sorted(self.gaps_by_worker) for g in self.gaps_by_worker[w]]

    @functools.cached_property
    def calls_hold_transfers(self):
        """Every measured device-timed copy's transfer ended before its call returned (docs: a
        watched program's cudaMemcpyAsync does not)."""
        return all(not r.timed or r.de <= r.he for r in self.measured)

    def gaps_on(self, device):
        """The gaps before the measured calls on `device` (a hand-off sentence's own)."""
        by_worker = {}
        for r in self.records:
            by_worker.setdefault(r.worker, []).append(r)
        out = []
        for rs in by_worker.values():
            rs = sorted(rs, key=lambda r: (r.hs, r.order))
            out += [b.hs - a.he for a, b in zip(rs, rs[1:]) if b.measured and b.device == device]
        return out

    def gap_p50(self, worker):
        return median(self.gaps_by_worker.get(worker, []))

    # --- devices
    @functools.cached_property
    def timed_measured(self):
        return [r for r in self.measured if r.timed]

    @functools.cached_property
    def devices(self):
        """Devices with a measured device-timed copy, as DeviceFacts by device."""
        return {d: self.device_facts(d) for d in sorted({r.device for r in self.timed_measured})}

    def device_facts(self, d):
        mine = [r for r in self.timed_measured if r.device == d]
        w = self.window
        in_flight = [r.transfer for r in self.records
                     if r.device == d and r.timed and overlaps(r.transfer, w)]
        return DeviceFacts(
            device=d, workers=len({r.worker for r in mine}), copies=len(mine),
            concurrency=mean_concurrency([r.transfer for r in mine]),
            peak_in_flight=peak(in_flight),
            host_concurrency=mean_concurrency([r.call for r in mine]),
            call_p50=median([r.he - r.hs for r in mine]),
            wait_p50=median([r.ds - r.hs for r in mine]),
            wait_busy=self.wait_busy(d, mine))

    def wait_busy(self, d, mine):
        busy = union(r.transfer for r in self.records if r.device == d and r.timed
                     and not r.failed)
        waited = covered_sum = 0
        for r in mine:
            if r.ds > r.hs:
                waited += r.ds - r.hs
                covered_sum += covered(busy, (r.hs, r.ds))
        return covered_sum / waited if waited else 0.0

    @functools.cached_property
    def device_concurrency(self):
        """The mean over devices of each device's concurrency (None without device times)."""
        if not self.devices:
            return None
        return sum(d.concurrency for d in self.devices.values()) / len(self.devices)

    @functools.cached_property
    def pre_device_p50(self):
        return median([r.ds - r.hs for r in self.timed_measured])

    @functools.cached_property
    def timed_call_p50(self):
        return median([r.he - r.hs for r in self.timed_measured])

    @functools.cached_property
    def transfer_ns(self):
        return [r.de - r.ds for r in self.timed_measured]

    # --- hand-off sequences
    @functools.cached_property
    def handoffs(self):
        """Hand-off sequence of every device with a measured copy on it."""
        return {d: self.handoff_of(d) for d in sorted({r.device for r in self.measured})}

    def handoff_of(self, d):
        on_d = [r for r in self.records if r.device == d]
        device_clock = all(r.timed for r in on_d)
        w = self.window
        interval = (lambda r: r.transfer) if device_clock else (lambda r: r.call)
        seq = [r for r in on_d if r.measured or (r.warmup and share_inside(interval(r), w) > 0)]
        seq.sort(key=lambda r: (interval(r)[0], r.order))
        changes = sum(1 for a, b in zip(seq, seq[1:]) if a.worker != b.worker)
        n = len(seq)
        runs, previous = {}, None
        for r in seq:
            copies, count = runs.get(r.worker, (0, 0))
            runs[r.worker] = (copies + 1, count + (r.worker != previous))
            previous = r.worker
        h = Handoff(device=d, device_clock=device_clock, workers=sorted({r.worker for r in seq}),
                    rate=changes / (n - 1) if n > 1 else 0.0,
                    mean_run_length=n / (changes + 1) if n else 0.0, runs=runs,
                    copies=sum(1 for r in seq if not r.warmup),
                    warmup_copies=sum(1 for r in seq if r.warmup))
        if device_clock:
            self.context_figures(seq, h)
        return h

    def context_figures(self, seq, h):
        groups = {}
        for r in seq:
            if r.context:
                groups.setdefault((r.pid, r.context), []).append(r)
        h.contexts = len(groups)
        h.context_peak = max((peak([r.transfer for r in rs]) for rs in groups.values()),
                             default=0)
        h.context_workers = max((len({r.worker for r in rs}) for rs in groups.values()),
                                default=0)

    def run_length(self, d, worker):
        """(mean run length, copies) of a worker in device d's sequence, counted only on its own
        device; (None, 0) elsewhere."""
        if self.own_device(worker) != d:
            return None, 0
        copies, count = self.handoffs[d].runs.get(worker, (0, 0))
        return (copies / count if count else None), copies

    def serialized(self, d):
        """A device whose transfers went one at a time (device clock, warm-ups included) with 2+
        workers."""
        facts = self.devices.get(d)
        h = self.handoffs.get(d)
        return bool(facts and h and h.device_clock and facts.workers >= 2
                    and facts.peak_in_flight == 1)

    @functools.cached_property
    def serialized_devices(self):
        return [d for d in self.devices if self.serialized(d)]

    @functools.cached_property
    def serialized_rate(self):
        """The mean hand-off rate over the serialized devices (None without one)."""
        rates = [self.handoffs[d].rate for d in self.serialized_devices]
        return sum(rates) / len(rates) if rates else None

    @functools.cached_property
    def took_turns(self):
        """Every device had 2+ workers and never two transfers at once (warm-ups included)."""
        return bool(self.devices) and all(f.workers >= 2 and f.peak_in_flight == 1
                                          for f in self.devices.values())

    @functools.cached_property
    def device_peak_in_flight(self):
        return max((f.peak_in_flight for f in self.devices.values()), default=0)

    # --- service
    def service_rates(self, leave_out=None):
        """worker -> measured bytes / its transfer time (device when every copy has it, else
        the calls); 0 for a planned worker without copies. `leave_out`: a record not counted."""
        out = {}
        for w, rs in self.copies_by_worker.items():
            rs = [r for r in rs if r is not leave_out]
            device = all(r.timed for r in rs)
            busy = sum((r.de - r.ds) if device else (r.he - r.hs) for r in rs)
            out[w] = sum(r.bytes for r in rs) * 1e9 / busy if busy > 0 else 0.0
        return out

    @functools.cached_property
    def service_jain(self):
        """Jain's index over the service rates: the unequal-service finding's."""
        return jain(list(self.service_rates().values()))

    @functools.cached_property
    def worker_rates(self):
        """worker -> its measured bytes / its own window (its first call's start to its last
        return); 0 for a planned worker without copies (docs: per_worker_Bps)."""
        out = {}
        for w, rs in self.copies_by_worker.items():
            window = max((r.he for r in rs), default=0) - min((r.hs for r in rs), default=0)
            out[w] = sum(r.bytes for r in rs) * 1e9 / window if rs and window > 0 else 0.0
        return out

    @functools.cached_property
    def fairness_jain(self):
        """Jain's index over the workers' own-window rates: the Bandwidth table's Jain."""
        return jain(list(self.worker_rates.values()))

    @functools.cached_property
    def slowest(self):
        """The measured call that took longest (the first of equals in the records' order)."""
        best = None
        for r in self.measured:
            if best is None or r.he - r.hs > best.he - best.hs:
                best = r
        return best

    @functools.cached_property
    def slowest_of_workers(self):
        """The copy served slowest, the one the Jain without it leaves out: the longest service
        time as service_rates counts it (its transfer where every copy of its worker has device
        times, else its call); the first of equals by worker, then records' order."""
        best, best_time = None, -1
        for w in self.workers:
            rs = sorted(self.copies_by_worker.get(w, []), key=lambda r: r.order)
            device = all(r.timed for r in rs)
            for r in rs:
                served = (r.de - r.ds) if device else (r.he - r.hs)
                if served > best_time:
                    best, best_time = r, served
        return best

    @functools.cached_property
    def service_jain_without_slowest(self):
        """Jain without the copy served slowest; None when it was its worker's only copy."""
        s = self.slowest_of_workers
        if s is None or len(self.copies_by_worker[s.worker]) < 2:
            return None
        return jain(list(self.service_rates(leave_out=s).values()))

    @functools.cached_property
    def least_served(self):
        rates = self.service_rates()
        return min(rates, key=lambda w: (rates[w], w)) if rates else None

    def unequal(self, limit):
        """Unequal service whatever the copy served slowest did: 2+ workers, copies, Jain below the
        limit, and also without the copy served slowest (a worker without copies needs no second
        look)."""
        if len(self.workers) < 2 or not self.copies or self.service_jain >= limit:
            return False
        if any(not rs for rs in self.copies_by_worker.values()):
            return True
        return (self.service_jain_without_slowest is not None
                and self.service_jain_without_slowest < limit)


# ------------------------------------------------------------------------------------------
# The plan

@dataclasses.dataclass
class Comparison:
    """A run against its baseline's trial inside the one run (docs: "Baseline and noise within
    one run")."""
    baseline: int           # the baseline trial's run index
    ratio: float
    p50_ratio: float
    judged: bool
    bound: float
    p50_bound: float

    @property
    def inside(self):
        return self.judged and within(self.ratio, self.bound)

    @property
    def p50_inside(self):
        return self.judged and within(self.p50_ratio, self.p50_bound)


@dataclasses.dataclass
class Verdict:
    """A trial group against its sweep point's baseline group."""
    baseline_group: int
    ratio: float
    finding: str            # faster, slower, negligible, no difference found, not testable,
    trials: int             # not tested
    baseline_trials: int
    p: float = None
    ci: tuple = None


@dataclasses.dataclass
class Group:
    label: str
    base_label: str
    sweep_point: dict
    runs: list              # RunFacts, by trial
    is_baseline: bool = False
    verdict: Verdict = None

    @property
    def aggregates(self):
        return [r.aggregate for r in self.runs if r.measured_ok]


class Plan:
    def __init__(self, results, constants):
        self.results = results
        self.c = constants
        self.runs = [RunFacts(r, i) for i, r in enumerate(results.get("runs", []))]
        self.by_index = {r.index: r for r in self.runs}

    def run(self, index):
        return self.by_index.get(index)

    # --- trials and switches
    def trials_of(self, run):
        """The runs that share the run's label (its trials, itself included)."""
        return [r for r in self.runs if r.label == run.label]

    def key_difference(self, a, b):
        """Dotted keys in which two runs' scaling keys differ (a key on one side only counts);
        None when either has none."""
        if a.scaling_key is None or b.scaling_key is None:
            return None
        keys = set(a.scaling_key) | set(b.scaling_key)
        return {k for k in keys if k not in a.scaling_key or k not in b.scaling_key
                or a.scaling_key[k] != b.scaling_key[k]}

    def differ_only_in(self, a, b, key):
        """Equal thread counts, and scaling keys that differ in `key` (or keys under it) alone."""
        diff = self.key_difference(a, b)
        if not diff or a.threads != b.threads:
            return False
        return all(k == key or k.startswith(key) for k in diff)

    def switched(self, run, key):
        """The runs of the same trial that differ from `run` in `key` alone."""
        return [o for o in self.runs if o is not run and o.trial == run.trial
                and self.differ_only_in(run, o, key)]

    def switch_pairs(self, key):
        """Pairs of labels whose runs differ in `key` alone: {(label a, label b): [(run of a, run
        of b), ...]} with label a < label b, trial pairs in plan order."""
        pairs = {}
        for a in self.runs:
            for b in self.switched(a, key):
                if a.label < b.label:
                    pairs.setdefault((a.label, b.label), []).append((a, b))
        return pairs

    # --- trial groups, baselines, verdicts
    @functools.cached_property
    def groups(self):
        groups = []
        for r in self.runs:
            home = next((g for g in groups if g.label == r.label
                         and all(o.trial != r.trial for o in g.runs)), None)
            if home is None:
                groups.append(Group(r.label, r.base_label, r.sweep_point, [r]))
            else:
                home.runs.append(r)
        groups.sort(key=lambda g: g.runs[0].plan_position)
        self.judge_groups(groups)
        return groups

    @property
    def has_trials(self):
        """A label with more than one run: the report then reads by label."""
        return any(len(g.runs) > 1 for g in self.groups)

    def group_of(self, run):
        return next((g for g in self.groups if run in g.runs), None)

    def configured_baseline(self):
        scenario = (self.results.get("scenario") or {}).get("scenario") or {}
        base = scenario.get("baseline")
        return base if isinstance(base, str) else ""

    def judge_groups(self, groups):
        """Each sweep point's baseline group and every other group's verdict against it."""
        wanted = self.configured_baseline()
        points = []
        for g in groups:
            point = next((p for p in points if p[0].sweep_point == g.sweep_point), None)
            if point is None:
                points.append([g])
            else:
                point.append(g)
        for point in points:
            measured = [g for g in point if g.aggregates]
            if wanted:
                base = next((g for g in measured if g.base_label == wanted), None)
            else:
                base = measured[0] if measured else None
            if base is None:
                continue
            base.is_baseline = True
            for g in measured:
                if g is not base:
                    g.verdict = self.verdict(g, base, groups.index(base))

    def verdict(self, g, base, base_at):
        a, b = g.aggregates, base.aggregates
        m, n = len(a), len(b)
        ratio = median(a) / median(b) if median(b) else 0.0
        v = Verdict(base_at, ratio, "not tested", m, n)
        if m < 2 or n < 2:
            return v
        if smallest_p(m, n) >= self.c.verdict_level:
            v.finding = "not testable"
            return v
        la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
        v.p = mann_whitney_p(la, lb)
        ci = shift_interval(la, lb, 1 - self.c.verdict_level)
        v.ci = (math.exp(ci[0]), math.exp(ci[1])) if ci else None
        if v.p >= self.c.verdict_level:
            v.finding = "no difference found"
        elif abs(ratio - 1) < self.c.negligible_ratio:
            v.finding = "negligible"
        else:
            v.finding = "slower" if ratio < 1 else "faster"
        return v

    @functools.cached_property
    def baseline_run(self):
        """The first baseline run with copies, in the results' order (None: no baseline)."""
        bases = {id(r) for g in self.groups if g.is_baseline for r in g.runs}
        return next((r for r in self.runs if id(r) in bases and r.copies > 0), None)

    def baseline_trial(self, run):
        """The baseline's run to hold `run` against: its group's baseline, same trial, else the
        first measured trial (None: not compared)."""
        g = self.group_of(run)
        if g is None or g.verdict is None or run.copies == 0:
            return None
        base = self.groups[g.verdict.baseline_group]
        candidates = [b for b in base.runs if b.status == "ok" and b.copies > 0]
        same = next((b for b in candidates if b.trial == run.trial), None)
        return same or (candidates[0] if candidates else None)

    def comparison(self, run):
        """The run against its baseline's trial (None: not compared); computed once."""
        cache = self.__dict__.setdefault("_comparisons", {})
        if id(run) not in cache:
            cache[id(run)] = self.compare(run)
        return cache[id(run)]

    def compare(self, run):
        base = self.baseline_trial(run)
        if base is None:
            return None
        ratio = run.aggregate / base.aggregate if base.aggregate > 0 else 0.0
        p50 = run.per_copy_p50 / base.per_copy_p50 if (base.per_copy_p50 or 0) > 0 else 0.0
        judged = (len(run.call_ns) >= 2 and len(run.per_copy_bps) >= 2 and
                  len(base.call_ns) >= 2 and len(base.per_copy_bps) >= 2 and ratio > 0)
        bound = noise_bound(standard_error(cv(run.call_ns), len(run.call_ns), False),
                            standard_error(cv(base.call_ns), len(base.call_ns), False))
        p50_bound = noise_bound(
            standard_error(cv(run.per_copy_bps), len(run.per_copy_bps), True),
            standard_error(cv(base.per_copy_bps), len(base.per_copy_bps), True))
        return Comparison(base.index, ratio, p50, judged, bound, p50_bound)

    def is_baseline_run(self, run):
        g = self.group_of(run)
        return bool(g and g.is_baseline and run.copies > 0)

    # --- scaling
    def one_thread_reference(self, run):
        """The one-thread run with the same scaling key: of the same trial, else the first of
        any trial (None: no scaling)."""
        if run.threads <= 1 or not run.scaling_key_text or run.aggregate <= 0:
            return None
        refs = [o for o in self.runs if o is not run and o.threads == 1
                and o.scaling_key_text == run.scaling_key_text and o.status != "skipped"
                and o.aggregate > 0]
        return next((o for o in refs if o.trial == run.trial), refs[0] if refs else None)

    def scaling_ratios(self, run):
        """The ratio of each trial of `run`'s label to the one-thread run of that same trial,
        with the reference run of each."""
        out = []
        for t in self.trials_of(run):
            ref = self.one_thread_reference(t)
            if ref is not None and ref.trial == t.trial:
                out.append((t.aggregate / ref.aggregate, ref))
        return out

