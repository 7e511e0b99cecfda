#!/usr/bin/env python3
"""Independent audit of the explanations an xferlab report prints (issue 32).

    audit_explanations.py --xferlab PATH/TO/xferlab FILE...

FILE is a results.json (or a *.results.json.xz, decompressed here with lzma). For each file the
tool renders `xferlab report FILE --format json` (and the table, for the host-activity line the
table prints itself), takes every sentence printed (per-run explanations, the summary, the
verdicts across trials and the per-run noise verdicts), classifies it by the catalogue's shapes
(docs/reading-reports.md, "Explanations"; the old shapes of issue 32 are recognised too, so
they are reported against the catalogue's conditions rather than as unknown), recomputes the
rule's preconditions and the numbers it quotes from the raw records of FILE with the code
below, and prints one line per finding:

    FILE: run N: <rule id>: <sentence excerpt>: <why> [#k]

[#k] names the item of issue 32 the finding belongs to. Exit 1 when there is any finding.

Nothing here reads the report's own statistics except which run it names as the baseline (a
plan fact): every quantity a rule rests on is recomputed from `records`, `settings`,
`scaling_key`, `trial`, `threads` and `host_activity`. Standard library only.
"""

import argparse
import collections
import dataclasses
import functools
import json
import lzma
import math
import os
import re
import subprocess
import sys
import tempfile

MARGIN_KEEP = 2.0          # hand-off: "kept" needs a mean run length >= 2.0 ...
MARGIN_HAND = 1.5          # ... "handed it off" <= 1.5
MIN_COPIES_SPLIT = 5       # ... over 5+ copies on the device
MIN_GAPS = 5               # returned-sooner-kept: 5+ gaps per named worker
SOONER_FACTOR = 1.5
WAIT_FRACTION = 0.25       # pre-device wait p50 >= 25 % of the call p50
HOST_CONC_MIN = 1.5
STALL_FACTOR = 5.0
QUEUED_TRANSFER_FACTOR = 2.0
JAIN_UNEQUAL = 0.9
PRACTICAL = 0.01           # 1 %: scaling and verdicts
LEVEL = 0.05
TICK_S = 0.010             # /proc/stat ticks (USER_HZ 100)
OTHERS_MIN = 0.5
STEAL_MIN = 0.01
STEAL_TICKS = 100
RATE_KEEP = 0.25           # gap-decides: <= 0.25 on one side, >= 0.75 on the other
RATE_HAND = 0.75
GAP_APART = 2.0
SHARED_CONC = 1.5
TURNS_RATE = 0.5

GIL_LAUNCHERS = {"python", "host+gil", "process", "mpi"}
PAYLOAD_OPTIONAL = {"process", "mpi"}
MECHANISM_WORDS = ["GIL", "lock", "hand-off", "handed", "took turns", "per context", "decides",
                   "waiting", "faster", "slower", "no difference found", "serializ",
                   "unfair", "erratic", "queued"]


# ------------------------------------------------------------------------------------------
# Numbers as the report prints them

DURATION_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def decimals(text):
    """Digits after the decimal point of a printed number."""
    return len(text.split(".")[1]) if "." in text else 0


def close_fixed(text, value):
    """A number printed with a fixed number of decimals: within half its last digit."""
    printed = float(text.replace(",", ""))
    return abs(printed - value) <= 0.5 * 10 ** -decimals(text) * 1.0001 + 1e-12


def close_sig3(text, value):
    """A number printed to 3 significant figures (trailing zeros may be dropped)."""
    printed = float(text)
    if value == 0 or printed == 0:
        return abs(printed - value) <= 0.5 * 10 ** -decimals(text)
    tol = 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 2)
    tol = max(tol, 0.5 * 10 ** -decimals(text) if _sig_digits(text) >= 3 else 0)
    return abs(printed - value) <= tol * 1.0001 + 1e-12


def _sig_digits(text):
    return len(text.replace(".", "").lstrip("0"))


def parse_duration(text):
    """'2.67 s' -> (number text, ns per unit)."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ns|us|µs|ms|s)\s*", text)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return m.group(1), DURATION_UNITS[m.group(2)]


def close_duration(text, ns):
    number, unit = parse_duration(text)
    return close_sig3(number, ns / unit)


def close_percent(text, fraction):
    """'14%' or '4.8%' or '25 %' against a fraction."""
    return close_fixed(text.strip().rstrip("%").strip(), fraction * 100)


def close_ratio(text, value):
    return close_fixed(text.strip().rstrip("x"), value)


def close_gbps(text, bps):
    return close_fixed(text, bps / 1e9)


def any_close(check, text, values):
    return any(v is not None and check(text, v) for v in values)


def show(value, unit=""):
    if value is None:
        return "none"
    if unit == "ns":
        for name, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
            if abs(value) >= scale:
                return f"{value / scale:.3g} {name}"
        return f"{value:.3g} ns"
    return f"{value:.3g}{unit}"


# ------------------------------------------------------------------------------------------
# Statistics

def percentile(values, p):
    """Type 7 (numpy's default), p in [0, 1]."""
    xs = sorted(values)
    if not xs:
        return None
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def median(values):
    return percentile(values, 0.5)


def cv(values):
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(var) / mean if mean else 0.0


def peak(intervals):
    """Most intervals open at one instant; ends come before starts at equal times."""
    events = []
    for start, end in intervals:
        events.append((start, 1))
        events.append((end, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    now = best = 0
    for _, delta in events:
        now += delta
        best = max(best, now)
    return best


def mean_concurrency(intervals):
    """Summed length over the span from the first start to the last end."""
    if not intervals:
        return None
    span = max(e for _, e in intervals) - min(s for s, _ in intervals)
    return sum(e - s for s, e in intervals) / span if span > 0 else None


def overlap(a, b):
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def jain(xs):
    if not xs or not any(xs):
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def smallest_p(m, n):
    """Smallest two-sided exact Mann-Whitney p of m vs n values without ties."""
    return min(1.0, 2.0 / math.comb(m + n, m))


@functools.lru_cache(maxsize=None)
def _u_counts(m, n):
    """Number of arrangements giving each U (0..m*n) of m vs n values."""
    if m == 0 or n == 0:
        return (1,)
    with_last_a = _u_counts(m - 1, n)   # the largest value is an a: it beats all n b's
    with_last_b = _u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, c in enumerate(with_last_a):
        counts[u + n] += c
    for u, c in enumerate(with_last_b):
        counts[u] += c
    return tuple(counts)


def mann_whitney_p(a, b):
    """Two-sided Mann-Whitney U p: exact without ties (m*n <= 2500), else normal with tie and
    continuity correction (scipy.stats.mannwhitneyu's defaults)."""
    m, n = len(a), len(b)
    pooled = sorted(a + b)
    ranks = _ranks(pooled)
    u = sum(ranks[x] for x in a) - m * (m + 1) / 2
    ties = len(set(pooled)) < len(pooled)
    if not ties and m * n <= 2500:
        counts = _u_counts(m, n)
        total = sum(counts)
        k = int(round(u))
        low = sum(counts[: k + 1]) / total
        high = sum(counts[k:]) / total
        return min(1.0, 2 * min(low, high))
    tie_term = sum(t ** 3 - t for t in collections.Counter(pooled).values())
    big_n = m + n
    sigma = math.sqrt(m * n / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1))))
    if sigma == 0:
        return 1.0
    z = (abs(u - m * n / 2) - 0.5) / sigma
    return min(1.0, math.erfc(max(z, 0) / math.sqrt(2)))


def _ranks(sorted_values):
    ranks, i = {}, 0
    while i < len(sorted_values):
        j = i
        while j + 1 < len(sorted_values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[sorted_values[i]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def within_noise(ratio, se_a, se_b):
    """docs/reading-reports.md: |ln r| <= 2 sqrt(se_a^2 + se_b^2)."""
    bound = 2 * math.sqrt(se_a ** 2 + se_b ** 2)
    return abs(math.log(ratio)) <= bound, bound


def bands_apart(xs, ys):
    return bool(xs and ys) and (min(xs) > max(ys) or min(ys) > max(xs))


# ------------------------------------------------------------------------------------------
# One run's records

@dataclasses.dataclass(frozen=True)
class Rec:
    worker: int
    warmup: bool
    failed: bool
    device: int
    bytes: int
    hs: float
    he: float
    ds: float
    de: float
    context: int
    pid: int

    @property
    def timed(self):
        return self.ds >= 0 and self.de >= self.ds

    @property
    def call(self):
        return (self.hs, self.he)

    @property
    def transfer(self):
        return (self.ds, self.de)

    @property
    def span(self):
        """The device interval when known, else the call (what moved the bytes)."""
        return self.transfer if self.timed else self.call


def rec_of(raw):
    return Rec(worker=raw.get("worker", 0), warmup=bool(raw.get("warmup", False)),
               failed=bool(raw.get("failed", False)), device=raw.get("device", -1),
               bytes=raw.get("size_bytes", 0), hs=raw["host_start_ns"], he=raw["host_end_ns"],
               ds=raw.get("device_start_ns", -1), de=raw.get("device_end_ns", -1),
               context=raw.get("context", 0), pid=raw.get("pid", 0))


def flatten(obj, prefix=""):
    out = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


class RunFacts:
    """Every quantity a rule reads, computed from one run's raw records."""

    def __init__(self, raw):
        self.raw = raw
        self.index = raw["index"]
        self.label = raw.get("label", "")
        self.launcher = raw.get("launcher", "")
        self.threads = raw.get("threads", 0)
        self.status = raw.get("status", "ok")
        self.settings = raw.get("settings") or {}
        self.trial = raw.get("trial", self.settings.get("trial", 1)) or 1
        key = raw.get("scaling_key") or ""
        self.scaling_key_text = key
        self.scaling_key = flatten(json.loads(key)) if key else None
        self.records = [rec_of(r) for r in raw.get("records") or []]
        self.host_activity = raw.get("host_activity")

    # --- sets of records
    @functools.cached_property
    def measured(self):
        return [r for r in self.records if not r.warmup and not r.failed]

    @functools.cached_property
    def window(self):
        if not self.measured:
            return None
        return (min(r.hs for r in self.measured), max(r.he for r in self.measured))

    @functools.cached_property
    def in_flight(self):
        """Calls in flight: every record whose call overlaps the window, warm-ups included."""
        w = self.window
        if w is None:
            return []
        return [r for r in self.records if r.hs < w[1] and r.he > w[0]]

    @functools.cached_property
    def workers(self):
        return sorted({r.worker for r in self.measured})

    def copies_of(self, worker):
        return [r for r in self.measured if r.worker == worker]

    # --- host side
    @functools.cached_property
    def host_peak(self):
        return peak([r.call for r in self.in_flight])

    @functools.cached_property
    def host_peak_measured(self):
        return peak([r.call for r in self.measured])

    @functools.cached_property
    def call_ns(self):
        return [r.he - r.hs for r in self.measured]

    @functools.cached_property
    def start_spread(self):
        firsts = {}
        for r in self.records:
            firsts[r.worker] = min(firsts.get(r.worker, r.hs), r.hs)
        return max(firsts.values()) - min(firsts.values()) if firsts else 0.0

    # --- devices
    @functools.cached_property
    def devices(self):
        return sorted({r.device for r in self.measured if r.timed})

    def on_device(self, device, records):
        return [r for r in records if r.device == device and r.timed]

    def device_peak(self, device):
        return peak([r.transfer for r in self.on_device(device, self.in_flight)])

    def device_concurrency(self, device, warmups=True):
        records = self.in_flight if warmups else self.measured
        return mean_concurrency([r.transfer for r in self.on_device(device, records)])

    @functools.cached_property
    def across_devices_peak(self):
        return peak([r.transfer for r in self.in_flight if r.timed])

    @functools.cached_property
    def across_devices_concurrency(self):
        return mean_concurrency([r.transfer for r in self.in_flight if r.timed])

    def device_workers(self, device):
        return sorted({r.worker for r in self.on_device(device, self.in_flight)})

    def measured_on(self, device):
        return self.on_device(device, self.measured)

    def host_concurrency_on(self, device):
        return mean_concurrency([r.call for r in self.measured_on(device)])

    def wait_p50(self, device=None):
        records = self.measured_on(device) if device is not None else \
            [r for r in self.measured if r.timed]
        return median([r.ds - r.hs for r in records])

    def call_p50(self, device=None):
        records = self.measured_on(device) if device is not None else \
            [r for r in self.measured if r.timed]
        return median([r.he - r.hs for r in records])

    def serialized(self, device):
        """A device with peak 1 and 2+ workers."""
        return self.device_peak(device) == 1 and len(self.device_workers(device)) >= 2

    @functools.cached_property
    def serialized_devices(self):
        return [d for d in self.devices if self.serialized(d)]

    # --- hand-off
    def sequence(self, device):
        """The device's transfers in device-start order: measured ones and the warm-ups whose
        transfer overlaps the window."""
        w = self.window
        seq = [r for r in self.on_device(device, self.records)
               if (not r.warmup and not r.failed)
               or (r.warmup and w and overlap(r.transfer, w) > 0)]
        return sorted(seq, key=lambda r: (r.ds, r.hs))

    def handoff(self, device):
        seq = self.sequence(device)
        n = len(seq)
        changes = sum(1 for a, b in zip(seq, seq[1:]) if a.worker != b.worker)
        rate = changes / (n - 1) if n > 1 else 0.0
        return rate, n / (changes + 1) if n else 0.0

    def worker_runs(self, device):
        """worker -> (copies in the sequence, number of its runs there)."""
        out = {}
        previous = None
        for r in self.sequence(device):
            copies, runs = out.get(r.worker, (0, 0))
            out[r.worker] = (copies + 1, runs + (r.worker != previous))
            previous = r.worker
        return out

    def run_length(self, device, worker):
        copies, runs = self.worker_runs(device).get(worker, (0, 0))
        return (copies / runs if runs else None), copies

    def keeps(self, device, worker):
        length, copies = self.run_length(device, worker)
        return length is not None and length >= MARGIN_KEEP and copies >= MIN_COPIES_SPLIT

    def hands_off(self, device, worker):
        length, copies = self.run_length(device, worker)
        return length is not None and length <= MARGIN_HAND and copies >= MIN_COPIES_SPLIT

    def worker_gaps(self, worker):
        """Call start minus the same worker's previous return, before each measured call."""
        own = sorted((r for r in self.records if r.worker == worker), key=lambda r: r.hs)
        return [b.hs - a.he for a, b in zip(own, own[1:]) if not b.warmup and not b.failed]

    @functools.cached_property
    def gaps(self):
        return [g for w in sorted({r.worker for r in self.records}) for g in self.worker_gaps(w)]

    def gap_p50(self, worker):
        return median(self.worker_gaps(worker))

    @functools.cached_property
    def mean_handoff_rate(self):
        rates = [self.handoff(d)[0] for d in self.serialized_devices]
        return sum(rates) / len(rates) if rates else None

    # --- contexts
    def context_peaks(self, device):
        groups = collections.defaultdict(list)
        for r in self.on_device(device, self.in_flight):
            if r.context:
                groups[(r.pid, r.context)].append(r)
        return {key: (peak([r.transfer for r in rs]), len({r.worker for r in rs}))
                for key, rs in groups.items()}

    # --- bytes, aggregate, service
    @functools.cached_property
    def aggregate(self):
        w = self.window
        if w is None or w[1] <= w[0]:
            return 0.0
        moved = 0.0
        for r in self.records:
            span = r.span
            length = span[1] - span[0]
            if length > 0:
                moved += r.bytes * overlap(span, w) / length
            elif w[0] <= span[0] <= w[1]:
                moved += r.bytes
        return moved / ((w[1] - w[0]) / 1e9)

    @functools.cached_property
    def warmups_in_window(self):
        w = self.window
        if w is None:
            return 0
        return sum(1 for r in self.records if r.warmup and overlap(r.span, w) > 0)

    @functools.cached_property
    def planned_workers(self):
        """Workers 0..threads-1 (and any other that recorded), whether or not they copied."""
        seen = {r.worker for r in self.records}
        return sorted(set(range(self.threads)) | seen)

    def service_rates(self):
        """worker -> measured bytes / its transfer time (device, else host call); 0 for a
        planned worker without measured copies."""
        out = {}
        for worker in self.planned_workers:
            copies = self.copies_of(worker)
            busy = sum((r.de - r.ds) if r.timed else (r.he - r.hs) for r in copies)
            out[worker] = sum(r.bytes for r in copies) / (busy / 1e9) if busy > 0 else 0.0
        return out

    @functools.cached_property
    def jain_service(self):
        return jain(list(self.service_rates().values()))

    # --- noise (docs/reading-reports.md, "Baseline and noise within one run")
    @functools.cached_property
    def per_copy_bps(self):
        return [r.bytes / ((r.he - r.hs) / 1e9) for r in self.measured if r.he > r.hs]

    @functools.cached_property
    def per_copy_p50(self):
        return median(self.per_copy_bps)

    def se_mean(self):
        durations = [d for d in self.call_ns if d > 0]
        return cv(durations) / math.sqrt(len(durations))

    def se_median(self):
        return math.sqrt(math.pi / 2) * cv(self.per_copy_bps) / math.sqrt(len(self.per_copy_bps))

    # --- slowest call
    @functools.cached_property
    def slowest(self):
        return max(self.measured, key=lambda r: r.he - r.hs) if self.measured else None

    @functools.cached_property
    def transfer_ns(self):
        return [r.de - r.ds for r in self.measured if r.timed]

    # --- settings
    @property
    def gil(self):
        """The run's gil setting where its workers take the GIL, else None."""
        if self.launcher not in GIL_LAUNCHERS:
            return None
        if self.launcher in PAYLOAD_OPTIONAL and not self.settings.get("payload"):
            return None
        return self.settings.get("gil") or "release"

    @property
    def batched(self):
        params = self.settings.get("params") or {}
        return self.settings.get("payload") == "threads_batch.py" or params.get("batch") is True

    @property
    def ok(self):
        return self.status == "ok" and bool(self.measured) and self.aggregate > 0


# ------------------------------------------------------------------------------------------
# The plan: switches, trials, groups

class Plan:
    def __init__(self, results):
        self.results = results
        self.runs = {r["index"]: RunFacts(r) for r in results.get("runs", [])}

    def run(self, index):
        return self.runs.get(index)

    def key_diff(self, a, b):
        """Keys of two runs' scaling_key that differ; a key missing on one side is ignored."""
        if a.scaling_key is None or b.scaling_key is None:
            return None
        keys = set(a.scaling_key) & set(b.scaling_key)
        return {k for k in keys if a.scaling_key[k] != b.scaling_key[k]}

    def differs_only_in(self, a, b, keys):
        """True when a and b differ in some of `keys` (dotted prefixes) and nothing else, with
        equal thread counts."""
        diff = self.key_diff(a, b)
        if not diff or a.threads != b.threads:
            return False
        return all(any(k == p or k.startswith(p) for p in keys) for k in diff)

    def switch_partners(self, run, keys):
        return [o for o in self.runs.values()
                if o is not run and self.differs_only_in(run, o, keys)]

    def same_setting(self, run):
        """Runs with the same scaling_key and thread count (one per trial)."""
        return [o for o in self.runs.values()
                if o.scaling_key_text == run.scaling_key_text and o.threads == run.threads
                and o.label == run.label]

    def one_thread(self, run):
        return [o for o in self.runs.values()
                if o.scaling_key_text == run.scaling_key_text and o.threads == 1]

    def by_trial(self, runs):
        out = {}
        for r in sorted(runs, key=lambda r: r.index):
            if r.ok:
                out.setdefault(r.trial, r)
        return out

    def scaling_pairs(self, run):
        """trial -> (this setting's aggregate, the one-thread aggregate), same trial."""
        mine = self.by_trial(self.same_setting(run))
        ones = self.by_trial(self.one_thread(run))
        return {t: (mine[t], ones[t]) for t in mine if t in ones}

    @functools.cached_property
    def groups(self):
        """Trial groups: runs of one label, one per trial, in index order (a label that occurs
        twice in a trial makes a second group). Runs that did not finish ok with copies are
        left out."""
        groups = []
        for r in sorted(self.runs.values(), key=lambda r: r.index):
            if not r.ok:
                continue
            home = next((g for g in groups if g[0].label == r.label
                         and all(o.trial != r.trial for o in g)), None)
            if home is None:
                groups.append([r])
            else:
                home.append(r)
        return groups

    def group_with(self, index):
        return next((g for g in self.groups if any(r.index == index for r in g)), None)


# ------------------------------------------------------------------------------------------
# Findings

@dataclasses.dataclass
class Finding:
    file: str
    where: str
    rule: str
    sentence: str
    why: str
    item: int = None

    def line(self):
        excerpt = self.sentence if len(self.sentence) <= 70 else self.sentence[:67] + "..."
        tag = f" [#{self.item}]" if self.item else ""
        return f"{self.file}: {self.where}: {self.rule}: {excerpt}: {self.why}{tag}"


class Problems(list):
    """(why, item) pairs a check found."""

    def need(self, condition, why, item=None):
        if not condition:
            self.append((why, item))
        return bool(condition)

    def number(self, check, text, value, what, item=None):
        if value is None:
            self.append((f"{what} {text}: nothing to recompute it from", item))
            return
        ok = check(text, value) if not isinstance(value, (list, tuple)) else \
            any_close(check, text, value)
        shown = value if not isinstance(value, (list, tuple)) else value[0]
        if not ok:
            unit = "ns" if check is close_duration else ""
            self.append((f"{what} printed {text}, recomputed {show(shown, unit)}", item))


@dataclasses.dataclass
class Ctx:
    plan: Plan
    report: dict
    run: RunFacts = None
    said: list = dataclasses.field(default_factory=list)   # the run's other sentences


# ------------------------------------------------------------------------------------------
# Shapes: regexes per rule id (new catalogue shapes first, then the old ones of issue 32)

DUR = r"[0-9.]+ (?:ns|us|µs|ms|s)"
LIST = r"[0-9][0-9, and]*"


@dataclasses.dataclass
class Shape:
    rule: str
    pattern: str
    check: object
    old: bool = False
    item: int = None        # the issue item an old shape belongs to

    @functools.cached_property
    def regex(self):
        return re.compile(self.pattern)


def numbers_in(text):
    return [int(x) for x in re.findall(r"\d+", text)]


def worker_ids(text):
    return numbers_in(text or "")


# --- per-run checks (catalogue)

def check_no_copies(ctx, m):
    p = Problems()
    p.need(not ctx.run.measured, f"{len(ctx.run.measured)} measured copies")
    p.need(ctx.run.status != "skipped", "the run was skipped")
    return p


def workers_with_two(run):
    return [w for w in run.workers if len(run.copies_of(w)) >= 2]


def check_calls_one_at_a_time(ctx, m, item=2):
    run, p = ctx.run, Problems()
    p.need(len(workers_with_two(run)) >= 2,
           f"{len(workers_with_two(run))} workers with 2+ measured copies (needs 2)", item)
    p.need(run.host_peak == 1, f"host-side peak {run.host_peak} with warm-ups in flight "
           f"(measured only: {run.host_peak_measured})", item)
    if m.groupdict().get("n"):
        p.need(int(m["n"]) in (len(run.workers), run.threads),
               f"{m['n']} workers printed, the run has {len(run.workers)}")
    check_gil_cause(ctx, m, p, item)
    return p


def gil_release_partners(ctx):
    return [o for o in ctx.plan.switch_partners(ctx.run, ["gil"]) if o.gil == "release"]


def check_gil_cause(ctx, m, p, item):
    """The cause clause: named with a gil switch that overlapped in every trial; 'not shown'
    with a switch that did not; 'no cause is named' for gil = hold without a switch."""
    run = ctx.run
    cause = m.groupdict().get("cause") or ""
    partners = gil_release_partners(ctx)
    every_trial = bool(partners) and all(o.host_peak >= 2 for o in partners)
    hold = run.gil == "hold"
    if cause.startswith(": the GIL held"):
        p.need(hold, f"the GIL named as cause with gil = {run.gil}", item)
        p.need(every_trial, "no gil switch whose release run overlapped (peak >= 2) in every "
               "trial", item)
        k = check_partner(ctx, m, partners, p, item)
        if k:
            p.number(lambda t, v: int(t) == v, m["p"], k.host_peak, "host-side peak of run K")
    elif "not shown" in cause:
        p.need(hold, f"the held GIL discussed with gil = {run.gil}", item)
        p.need(partners and not every_trial, "the gil switch's release runs overlapped in every "
               "trial" if partners else "no run differs from it in gil alone", item)
        check_partner(ctx, m, partners, p, item)
    elif "no cause is named" in cause:
        p.need(hold, f"gil = hold clause with gil = {run.gil}", item)
        p.need(not ctx.plan.switch_partners(run, ["gil"]),
               "a run of this plan differs from it in gil alone", item)
    else:
        p.need(not hold, "gil = hold without its cause clause", item)


def check_partner(ctx, m, partners, p, item):
    index = m.groupdict().get("k") or m.groupdict().get("k2")
    k = ctx.plan.run(int(index)) if index else None
    if p.need(k in partners, f"run {index} is not a gil = release run differing from this "
              "one in gil alone", item):
        return k
    return None


def check_calls_short(ctx, m, item=13):
    run, p = ctx.run, Problems()
    p.need(run.gil != "hold", "gil = hold: the held GIL spreads the first calls", 13)
    p.need(len(workers_with_two(run)) >= 2, "fewer than 2 workers with 2+ measured copies", item)
    p.need(run.host_peak == 1, f"host-side peak {run.host_peak} with warm-ups in flight", item)
    p50, spread = median(run.call_ns), run.start_spread
    p.need(p50 is not None and p50 < spread / 2,
           f"call p50 {show(p50, 'ns')} is not under half the spread {show(spread, 'ns')}", item)
    p.number(close_duration, m["t"], p50, "call p50")
    p.number(close_duration, m["s"], spread, "first-call spread")
    return p


def check_device_one_at_a_time(ctx, m, item=None):
    run, p = ctx.run, Problems()
    d = int(m["d"])
    p.need(run.device_peak(d) == 1,
           f"device {d} peak {run.device_peak(d)} with warm-ups in flight", item)
    p.need(len(run.device_workers(d)) >= 2, f"{len(run.device_workers(d))} workers on {d}", item)
    p.need(len(run.measured_on(d)) >= 2, f"{len(run.measured_on(d))} device-timed copies", item)
    p.need(int(m["n"]) in (len(run.device_workers(d)), run.threads),
           f"{m['n']} workers printed, device {d} has {len(run.device_workers(d))}")
    return p


def waiting_holds(run, d):
    """waiting-not-moving's margin on device d: (holds, why not)."""
    host = run.host_concurrency_on(d) or 0
    dev = run.device_concurrency(d) or 0
    wait, call = run.wait_p50(d), run.call_p50(d)
    checks = [
        (len(run.device_workers(d)) >= 2, f"{len(run.device_workers(d))} worker(s) on device {d}"),
        (host >= HOST_CONC_MIN, f"host concurrency on device {d} {host:.2f} < 1.5"),
        (host >= HOST_CONC_MIN * dev, f"host {host:.2f} < 1.5 x device {dev:.2f} on device {d}"),
        (run.device_peak(d) == 1, f"device {d} peak {run.device_peak(d)} (warm-ups in)"),
        (call and wait is not None and wait >= WAIT_FRACTION * call,
         f"pre-device wait p50 {show(wait, 'ns')} < 25% of call p50 {show(call, 'ns')}"),
    ]
    fails = [why for ok, why in checks if not ok]
    return not fails, "; ".join(fails)


def check_waiting_not_moving(ctx, m, item=1):
    run, p = ctx.run, Problems()
    d = int(m["d"])
    if not p.need(d in run.devices, f"device {d} has no device-timed copies", item):
        return p
    holds, why = waiting_holds(run, d)
    p.need(holds, why, item)
    p.number(close_fixed, m["x"], run.host_concurrency_on(d), "host concurrency")
    p.number(close_fixed, m["y"], [run.device_concurrency(d), run.device_concurrency(d, False)],
             "device concurrency")
    p.number(close_duration, m["t"], run.wait_p50(d), "pre-device wait p50")
    call = run.call_p50(d)
    p.number(close_percent, m["p"], run.wait_p50(d) / call if call else None, "wait share")
    return p


def check_calls_wait(ctx, m, item=None):
    run, p = ctx.run, Problems()
    wait, call = run.wait_p50(), run.call_p50()
    p.need(call and wait is not None and wait >= WAIT_FRACTION * call,
           f"wait p50 {show(wait, 'ns')} < 25% of call p50 {show(call, 'ns')}", item)
    p.number(close_duration, m["t"], wait, "wait p50")
    p.number(close_percent, m["p"], wait / call if call and wait is not None else None,
             "wait share")
    p.number(close_duration, m["c"], call, "call p50")
    waited = {int(x) for s in ctx.said for x in re.findall(r"^on device (\d+) calls overlapped", s)}
    p.need(not run.devices or not set(run.devices) <= waited,
           "waiting-not-moving already said it for every device", item)
    return p


def check_hand_off(ctx, m, item=15):
    run, p = ctx.run, Problems()
    d = int(m["d"])
    if not p.need(d in run.devices, f"device {d} has no device-timed transfers", item):
        return p
    p.need(run.serialized(d), f"device {d}: peak {run.device_peak(d)}, "
           f"{len(run.device_workers(d))} workers (needs peak 1 and 2+)", item)
    rate, length = run.handoff(d)
    p.number(close_percent, m["pct"], rate, "changed hands")
    p.number(close_fixed, m["r"], rate, "hand-off rate")
    p.number(close_fixed, m["l"], length, "mean run length")
    check_split(run, d, worker_ids(m["kept"]), "kept", run.keeps, m["tk"], p, item)
    check_split(run, d, worker_ids(m["handed"]), "handed it off", run.hands_off, m["th"], p, item)
    if m["g"]:
        p.number(close_duration, m["g"], median(run.gaps), "gap p50")
        p.number(close_duration, m["h"], percentile(run.gaps, 0.9), "gap p90")
    return p


def check_split(run, d, workers, verb, holds, gap_text, p, item):
    for w in workers:
        length, copies = run.run_length(d, w)
        p.need(holds(d, w), f"worker {w} {verb} with mean run length "
               f"{'none' if length is None else f'{length:.2f}'} over {copies} copies on device "
               f"{d} (needs {'>= 2.0' if verb == 'kept' else '<= 1.5'} over 5+)", item)
    if workers and gap_text:
        own = [g for w in workers for g in run.worker_gaps(w)]
        medians = [run.gap_p50(w) for w in workers]
        medians = [x for x in medians if x is not None]
        p.number(close_duration, gap_text, [median(own), median(medians)],
                 f"gap p50 of the workers that {verb}")


def check_returned_sooner(ctx, m, item=15, factor=SOONER_FACTOR):
    run, p = ctx.run, Problems()
    d = int(m["d"])
    keepers = [w for w in run.device_workers(d) if run.keeps(d, w)]
    handers = [w for w in run.device_workers(d) if run.hands_off(d, w)]
    if not p.need(keepers and handers, f"device {d}: keepers {keepers}, handers {handers} by the "
                  "catalogue's margins (>= 2.0 / <= 1.5 over 5+ copies)", item):
        return p
    for w in keepers + handers:
        p.need(len(run.worker_gaps(w)) >= MIN_GAPS,
               f"worker {w} has {len(run.worker_gaps(w))} gaps (needs 5)", item)
    slowest_keeper = max(run.gap_p50(w) or 0 for w in keepers)
    quickest_hander = min(run.gap_p50(w) or 0 for w in handers)
    p.need(slowest_keeper * factor <= quickest_hander,
           f"keepers' largest gap p50 {show(slowest_keeper, 'ns')} x {factor} > handers' "
           f"smallest {show(quickest_hander, 'ns')}", item)
    return p


def check_gil_released(ctx, m, item=11):
    run, p = ctx.run, Problems()
    p.need(run.gil == "release", f"gil = {run.gil}", item)
    p.need(any(run.device_peak(d) == 1 for d in run.devices), "no device with peak 1", item)
    return p


def check_per_context(ctx, m, item=None):
    run, p = ctx.run, Problems()
    d = int(m["d"])
    peaks = run.context_peaks(d)
    p.need(len(peaks) >= 2, f"{len(peaks)} contexts on device {d}", item)
    p.need(all(pk == 1 for pk, _ in peaks.values()),
           f"a context with peak {max((pk for pk, _ in peaks.values()), default=0)}", item)
    p.need(run.device_peak(d) >= 2, f"device {d} peak {run.device_peak(d)}", item)
    p.need(any(n >= 2 for _, n in peaks.values()), "no context with 2+ workers", item)
    p.number(lambda t, v: int(t) == v, m["n"], len(peaks), "contexts")
    p.number(lambda t, v: int(t) == v, m["p"], run.device_peak(d), "device peak")
    if m.groupdict().get("w"):
        p.number(lambda t, v: int(t) == v, m["w"], max((n for _, n in peaks.values()), default=0),
                 "most workers in one context")
    return p


def noise_comparison(run, base):
    """(aggregate ratio, within, bound, p50 ratio, p50 within) or None when not judged."""
    if base is None or len(run.per_copy_bps) < 2 or len(base.per_copy_bps) < 2 \
            or not run.aggregate or not base.aggregate:
        return None
    ratio = run.aggregate / base.aggregate
    agg_in, bound = within_noise(ratio, run.se_mean(), base.se_mean())
    p50 = run.per_copy_p50 / base.per_copy_p50
    p50_in, _ = within_noise(p50, run.se_median(), base.se_median())
    return ratio, agg_in, bound, p50, p50_in


def check_same_aggregate(ctx, m, item=3):
    run, p = ctx.run, Problems()
    base = ctx.plan.run(int(m["b"]))
    if not p.need(base is not None, f"no run {m['b']}", item):
        return p
    p.need(base.trial == run.trial, f"baseline run {base.index} is trial {base.trial}, this run "
           f"trial {run.trial}", 6)
    cmp = noise_comparison(run, base)
    if not p.need(cmp is not None, "too few copies to judge noise", item):
        return p
    ratio, agg_in, _, p50, p50_in = cmp
    p.need(agg_in, f"aggregate {ratio:.3f}x is outside the noise", item)
    p.need(not p50_in and p50 < 1, f"per-copy p50 {p50:.3f}x is within noise or not lower", item)
    p.number(close_ratio, m["k"], 1 / p50 if p50 else None, "per-copy p50 ratio")
    check_mechanism_clause(run, m.groupdict().get("clause") or "", p, item)
    return p


def check_mechanism_clause(run, clause, p, item):
    devices = run.devices
    if "took turns" in clause or "hand-off effect" in clause:
        rates = [run.handoff(d)[0] for d in devices]
        p.need(devices, "the copies took turns: no device-timed transfers", item)
        p.need(all(run.device_peak(d) == 1 for d in devices),
               "the copies took turns: the run's devices did not all have peak 1 "
               f"({[run.device_peak(d) for d in devices]})", item)
        p.need(not rates or min(rates) >= TURNS_RATE,
               f"the copies took turns: hand-off rates {[round(r, 2) for r in rates]} "
               "(needs >= 0.5)",
               item)
        rate = re.search(r"hand-off rate ([0-9.]+)", clause)
        if rate and rates:
            p.number(close_fixed, rate.group(1), [sum(rates) / len(rates)] + rates, "hand-off rate")
    elif "shared the device" in clause:
        # Warm-ups in flight included, or measured transfers only: the catalogue names neither.
        concs = [run.device_concurrency(d, warmups) or 0 for d in devices
                 for warmups in (True, False)]
        p.need(concs and max(concs) >= SHARED_CONC,
               f"shared the device: device concurrency {[round(c, 2) for c in concs]} (needs "
               ">= 1.5)", item)
        conc = re.search(r"concurrency ([0-9.]+)", clause)
        if conc and concs:
            p.number(close_fixed, conc.group(1), concs, "device concurrency")
    elif clause:
        p.append((f"a mechanism clause the catalogue does not have: {clause!r}", item))


def slowest_parts(run):
    s = run.slowest
    call = s.he - s.hs
    return s, call, median(run.call_ns)


def check_slowest(ctx, m, item=4):
    run, p = ctx.run, Problems()
    s, call, med = slowest_parts(run)
    kind = m["kind"]
    p.need(call >= STALL_FACTOR * med, f"slowest call {show(call, 'ns')} < 5x median "
           f"{show(med, 'ns')}", item)
    if kind == "untimed":
        p.need(not s.timed, "the slowest call has device times: waiting and moving can be told "
               "apart", item)
        p.number(close_duration, m["t"], call, "slowest call")
        p.number(close_duration, m["m"], med, "median call")
        return p
    if not p.need(s.timed, "the slowest call has no device times", item):
        return p
    transfer, med_t = s.de - s.ds, median(run.transfer_ns)
    queued = transfer <= QUEUED_TRANSFER_FACTOR * med_t
    if kind == "queued":
        p.need(queued, f"the slowest call's transfer {show(transfer, 'ns')} > 2x the median "
               f"transfer {show(med_t, 'ns')}: erratic, not queued", item)
        p.number(close_duration, m["t"], call, "slowest call")
        p.number(close_duration, m["m"], med, "median call")
        p.number(close_duration, m["w"], s.ds - s.hs, "its wait")
        p.number(close_duration, m["x"], transfer, "its transfer")
        p.number(close_duration, m["y"], med_t, "median transfer")
    else:
        p.need(not queued, f"the slowest call was {show(s.ds - s.hs, 'ns')} waiting and "
               f"{show(transfer, 'ns')} moving bytes (median transfer {show(med_t, 'ns')}): "
               "queued, not erratic", item)
        p.number(close_duration, m["x"], [transfer, max(run.transfer_ns)], "slowest transfer")
        p.number(close_duration, m["y"], med_t, "median transfer")
    return p


def check_unequal_service(ctx, m, item=7):
    run, p = ctx.run, Problems()
    rates = run.service_rates()
    p.need(len(rates) >= 2, f"{len(rates)} workers", item)
    j = run.jain_service
    p.need(j is not None and j < JAIN_UNEQUAL, f"Jain over bytes per transfer time "
           f"{'none' if j is None else f'{j:.3f}'} (needs < 0.9)", item)
    p.number(close_fixed, m["j"], j, "Jain")
    w = int(m["w"])
    if m.groupdict().get("p") is None:
        p.need(w in rates and not run.copies_of(w), f"worker {w} made measured copies", item)
        return p
    mean = sum(rates.values()) / len(rates) if rates else 0
    p.number(close_percent, m["p"], rates.get(w, 0) / mean if mean else None,
             f"worker {w}'s share")
    return p


def scaling_facts(plan, run):
    pairs = plan.scaling_pairs(run)
    ratios = [a.aggregate / b.aggregate for a, b in pairs.values()]
    mine = [a.aggregate for a, _ in pairs.values()]
    ones = [b.aggregate for _, b in pairs.values()]
    ref = pairs.get(run.trial, (None, None))[1]
    return pairs, (median(ratios) if ratios else None), mine, ones, ref


def check_scaling(ctx, m, item=None):
    run, p = ctx.run, Problems()
    pairs, s, mine, ones, _ = scaling_facts(ctx.plan, run)
    kind = m["kind"]
    item = item or (5 if kind in ("overlap", "none") else 6)
    p.need(run.threads > 1, "a one-thread run", item)
    if not p.need(len(pairs) >= 2, f"{len(pairs)} trial(s) paired with a one-thread run of the "
                  "same trial: nothing is said with one", item):
        return p
    p.number(close_ratio, m["s"], s, "median of the trials' ratios")
    one_labels = sorted({b.label for _, b in pairs.values()})
    p.need(one_labels == [m["label"]], f"one-thread run '{m['label']}': the paired one-thread "
           f"runs are labelled {one_labels}", 6)
    apart, practical = bands_apart(mine, ones), abs(s - 1) >= PRACTICAL
    if kind in ("more", "fewer"):
        p.need(apart, f"the trials overlap ({gb(mine)} vs {gb(ones)} GB/s)", item)
        p.need(practical, f"median ratio {s:.4f}: under 1 %", item)
        p.need((s > 1) == (kind == "more"), f"'{kind}' with a median ratio {s:.3f}", item)
        p.number(lambda t, v: int(t) == v, m["k"], len(pairs), "trials")
        check_bands(m, mine, ones, p)
    elif kind == "none":
        p.need(not practical, f"median ratio {s:.4f}: 1 % or more", item)
    else:
        p.need(not apart or not practical, f"every trial apart ({gb(mine)} vs {gb(ones)} GB/s) "
               "and 1 % or more: a consistent difference", item)
        p.number(lambda t, v: int(t) == v, m["k"], len(pairs), "trials")
        check_bands(m, mine, ones, p)
    return p


def gb(values):
    return f"{min(values) / 1e9:.2f}-{max(values) / 1e9:.2f}" if values else "-"


def check_bands(m, mine, ones, p):
    printed = [m["a"], m["b"], m["c"], m["d"]]
    for order in ((mine, ones), (ones, mine)):
        want = [min(order[0]), max(order[0]), min(order[1]), max(order[1])]
        if all(close_gbps(t, v) for t, v in zip(printed, want)):
            return
    p.append((f"bands printed {m['a']}-{m['b']} vs {m['c']}-{m['d']}, recomputed {gb(mine)} vs "
              f"{gb(ones)} GB/s", None))


# --- the host-activity line (the table prints it)

def shared_machine_holds(activity):
    """(holds, why not) for shared-machine's margin."""
    if not activity:
        return False, "no host_activity recorded"
    window_s = activity.get("window_ns", 0) / 1e9
    cpus = activity.get("cpus", 0)
    if window_s <= 0 or cpus <= 0:
        return False, "no window or CPU count"
    resolution = 2 * cpus * TICK_S / window_s
    others = activity.get("others_cpus", 0)
    busy_ok = activity.get("busy_cpus", 0) >= activity.get("own_cpus", 0)
    by_others = others - resolution >= OTHERS_MIN and busy_ok
    by_steal = activity.get("steal_fraction", 0) >= STEAL_MIN and window_s / TICK_S >= STEAL_TICKS
    if by_others or by_steal:
        return True, ""
    return False, (f"others {others:.2f} CPUs over a {window_s * 1e3:.3g} ms window on {cpus} "
                   f"CPUs: tick resolution {resolution:.2f} CPUs"
                   + ("" if busy_ok else "; busy below xferlab's own CPU time"))


def check_shared_machine(ctx, m, item=8):
    run, p = ctx.run, Problems()
    activity = run.host_activity
    holds, why = shared_machine_holds(activity)
    p.need(holds, why, item)
    if not activity:
        return p
    p.number(close_fixed, m["x"], activity.get("others_cpus"), "other CPUs")
    p.number(lambda t, v: int(t) == v, m["n"], activity.get("cpus"), "CPUs")
    if m.groupdict().get("y") is None:
        return p
    window_s = activity.get("window_ns", 0) / 1e9
    p.number(close_fixed, m["y"], activity.get("own_cpus"), "xferlab's CPUs")
    p.number(close_fixed, m["res"], 2 * activity.get("cpus", 0) * TICK_S / window_s
             if window_s else None, "tick resolution")
    p.number(close_duration, m["w"], activity.get("window_ns"), "window")
    p.number(close_fixed, m["s"], activity.get("steal_fraction", 0) * 100, "steal")
    span = "copies" if m["span"] == "the copies ran" else "run"
    p.need(span == activity.get("span", "run"), f"'{m['span']}' for span "
           f"{activity.get('span', 'run')!r}")
    p.need(bool(m["mpi"]) == (run.launcher == "mpi"), "the MPI clause with launcher "
           f"{run.launcher}")
    return p


# --- summary checks

def run_list(plan, text, p, item=None):
    runs = []
    for i in numbers_in(text):
        r = plan.run(i)
        if p.need(r is not None, f"no run {i}", item):
            runs.append(r)
    return runs


def check_gap_vs_handoff(ctx, m, item=12):
    plan, p = ctx.plan, Problems()
    entries = re.findall(r"run (\d+) \(([^)]*)\) gap p50 (" + DUR + r"), hand-off rate ([0-9.]+)",
                         m["list"])
    p.need(len(entries) >= 2, f"{len(entries)} runs listed (needs 2)", item)
    for index, _, gap, rate in entries:
        r = plan.run(int(index))
        if not p.need(r and r.serialized_devices, f"run {index} has no serialized device", item):
            continue
        p.number(close_duration, gap, [median(r.gaps)], f"run {index} gap p50")
        p.number(close_fixed, rate, r.mean_handoff_rate, f"run {index} hand-off rate")
    return p


def check_gap_decides(ctx, m, item=12):
    plan, p = ctx.plan, Problems()
    keepers = run_list(plan, m["a"], p, item)
    handers = run_list(plan, m["b"], p, item)
    if not p.need(keepers and handers, "no runs on one side", item):
        return p
    pairs = [(a, b) for a in keepers for b in handers if a.trial == b.trial]
    p.need(pairs, "no trial pairs", item)
    for a, b in pairs:
        p.need(plan.differs_only_in(a, b, ["threads.between"]),
               f"runs {a.index} and {b.index} differ in {sorted(plan.key_diff(a, b) or ['?'])}"
               " (needs threads.between alone)", item)
        check_gap_pair(a, b, p, item)
    check_side_numbers(keepers, m["t"], m["x"], p, "kept")
    check_side_numbers(handers, m["u"], m["y"], p, "handed")
    return p


def check_gap_pair(a, b, p, item):
    ra, rb = a.mean_handoff_rate, b.mean_handoff_rate
    ga, gb_ = median(a.gaps), median(b.gaps)
    if not p.need(ra is not None and rb is not None,
                  f"run {a.index if ra is None else b.index} has no serialized device", item):
        return
    p.need(ra <= RATE_KEEP and rb >= RATE_HAND,
           f"trial {a.trial}: hand-off rates {ra:.2f} vs {rb:.2f} (needs <= 0.25 and >= 0.75)",
           item)
    p.need(ga and gb_ and gb_ >= GAP_APART * ga,
           f"trial {a.trial}: gaps {show(ga, 'ns')} vs {show(gb_, 'ns')} (needs 2x apart, "
           "the keeper shorter)", item)


def check_side_numbers(runs, gap_text, rate_text, p, side):
    gaps = [median(r.gaps) for r in runs]
    rates = [r.mean_handoff_rate for r in runs if r.mean_handoff_rate is not None]
    p.number(close_duration, gap_text, [median(gaps)] + gaps, f"gap p50 of the runs that {side}")
    if rates:
        p.number(close_fixed, rate_text, [median(rates)] + rates, f"rate of the runs that {side}")


def check_context_switch(ctx, m, item=10):
    plan, p = ctx.plan, Problems()
    primary = run_list(plan, m["a"], p, item)
    own = run_list(plan, m["b"], p, item)
    for r in primary:
        p.need(r.devices and max(r.device_peak(d) for d in r.devices) == 1,
               f"primary-context run {r.index} has device peak "
               f"{max((r.device_peak(d) for d in r.devices), default=0)}", item)
    for r in own:
        p.need(any(r.device_peak(d) >= 2 for d in r.devices),
               f"per-worker run {r.index} never had two on a device", item)
    for r in primary:
        partners = [o for o in own if o.trial == r.trial
                    and plan.differs_only_in(r, o, ["transfer.context"])]
        p.need(partners, f"no listed run of trial {r.trial} differs from run {r.index} in "
               "transfer.context alone", item)
    return p


def check_warmups(ctx, m, item=9):
    plan, p = ctx.plan, Problems()
    runs = run_list(plan, m["runs"], p, item)
    total = sum(r.warmups_in_window for r in runs)
    p.need(int(m["n"]) == total, f"{m['n']} printed, {total} warm-ups overlap the listed runs' "
           "windows")
    for r in runs:
        p.need(r.warmups_in_window >= 1, f"run {r.index} has no warm-up in its window")
    turns = run_list(plan, m.groupdict().get("turns") or "", p, item)
    if m.groupdict().get("old"):
        turns = runs
    for r in turns:
        p.need(took_turns(r), f"run {r.index}: the workers did not take turns on a device "
               f"(device peaks {[r.device_peak(d) for d in r.devices]}, workers per device "
               f"{[len(r.device_workers(d)) for d in r.devices]})", item)
    return p


def took_turns(run):
    """Every device of the run had 2+ workers and peak 1, warm-ups included (one worker per
    device is not taking turns)."""
    return bool(run.devices) and all(run.device_peak(d) == 1 and
                                     len(run.device_workers(d)) >= 2 for d in run.devices)


# --- verdicts across trials

def expected_verdict(a, b):
    """The catalogue's finding for trial aggregates a against the baseline's b."""
    m, n = len(a), len(b)
    ratio = median(a) / median(b)
    if m < 2 or n < 2:
        return "not tested", ratio, None
    if smallest_p(m, n) >= LEVEL:
        return "not testable", ratio, None
    p = mann_whitney_p(a, b)
    if p >= LEVEL:
        return "no difference found", ratio, p
    if abs(ratio - 1) < PRACTICAL:
        return "negligible", ratio, p
    return ("faster" if ratio > 1 else "slower"), ratio, p


def group_aggregates(plan, report_group, p):
    """The trial aggregates of the report's group, recomputed; the group is our own grouping's
    (same label, one run per trial) that holds its first run."""
    runs = report_group.get("runs") or []
    mine = plan.group_with(runs[0]) if runs else None
    if not p.need(mine, f"no trials for {report_group.get('label')!r}"):
        return []
    p.need(sorted(r.index for r in mine) == sorted(runs), f"trial group "
           f"{report_group.get('label')!r} holds runs {sorted(runs)}, recomputed "
           f"{sorted(r.index for r in mine)}")
    return [r.aggregate for r in mine]


def check_verdict_text(plan, text, group, base, item=14):
    p = Problems()
    m = re.match(r"(?P<r>[0-9.]+)x, (?P<word>faster|slower|no difference found|negligible|"
                 r"not testable|not tested)\b(?P<rest>.*)$", text)
    if not p.need(m, f"not a verdict shape: {text!r}", item):
        return p
    a, b = group_aggregates(plan, group, p), group_aggregates(plan, base, p)
    if not a or not b:
        return p
    want, ratio, pval = expected_verdict(a, b)
    p.number(close_ratio, m["r"], ratio, "median ratio")
    p.need(m["word"] == want, f"'{m['word']}' where {len(a)} vs {len(b)} trials give '{want}'"
           + (f" (Mann-Whitney p={pval:.3g})" if pval is not None else
              f" (smallest p {smallest_p(len(a), len(b)):.3g})" if len(a) > 1 < len(b) else ""),
           item)
    pm = re.search(r"p=([0-9.e-]+)", m["rest"])
    if pm and pval is not None:
        p.number(close_sig3, pm.group(1).rstrip(","), pval, "Mann-Whitney p")
    counts = re.search(r"(\d+) vs (\d+) trials", m["rest"])
    if counts:
        p.need((int(counts[1]), int(counts[2])) == (len(a), len(b)),
               f"{counts[0]} printed, {len(a)} vs {len(b)} recomputed")
    smallest = re.search(r"smallest p they can give is ([0-9.]+)", m["rest"])
    if smallest:
        p.number(close_fixed, smallest.group(1), smallest_p(len(a), len(b)), "smallest p")
    return p


# --- per-run noise verdict (bookkeeping: inside / outside the noise)

def check_noise_verdict(plan, run, base, text):
    p = Problems()
    m = re.fullmatch(r"(?P<r>[0-9.]+)x \((?:(?P<side>inside|outside) this run's noise "
                     r"\+-(?P<pct>[0-9.]+%)|too few copies to judge noise)\)", text)
    if not p.need(m, f"not a noise verdict shape: {text!r}"):
        return p
    cmp = noise_comparison(run, base)
    if m["side"] is None:
        p.need(cmp is None, "enough copies on both sides to judge noise")
        return p
    if not p.need(cmp is not None, "too few copies to judge noise"):
        return p
    ratio, agg_in, bound, _, _ = cmp
    p.number(close_ratio, m["r"], ratio, "aggregate ratio")
    p.need((m["side"] == "inside") == agg_in, f"{m['side']} where |ln {ratio:.4f}| vs bound "
           f"{bound:.4f} says {'inside' if agg_in else 'outside'}")
    p.number(close_percent, m["pct"], math.exp(bound) - 1, "noise bound")
    return p


def check_noise_lists(ctx, m, item=None):
    plan, p = ctx.plan, Problems()
    inside = m["side"] == "inside"
    for r in run_list(plan, m["runs"], p):
        cmp = noise_comparison(r, baseline_for(ctx, r))
        if p.need(cmp is not None, f"run {r.index}: too few copies to judge"):
            p.need(cmp[1] == inside,
                   f"run {r.index} is {'outside' if inside else 'inside'} the noise")
    return p


def baseline_for(ctx, run):
    for rr in ctx.report.get("runs", []):
        if rr.get("index") == run.index:
            vb = (rr.get("analysis") or {}).get("vs_baseline") or {}
            return ctx.plan.run(vb.get("baseline_run"))
    return None


def check_understates(ctx, m, item=3):
    plan, p = ctx.plan, Problems()
    for r in run_list(plan, m["runs"], p, item):
        cmp = noise_comparison(r, baseline_for(ctx, r))
        if not p.need(cmp is not None, f"run {r.index}: too few copies to judge", item):
            continue
        p.need(cmp[1] and not cmp[4] and cmp[3] < 1,
               f"run {r.index}: not the same aggregate with slower copies", item)
        if m.groupdict().get("handoff"):
            sub = Problems()
            check_mechanism_clause(r, "took turns", sub, item)
            p.extend((f"run {r.index} (hand-off): {why}", it) for why, it in sub)
    return p


def check_verdict_list(ctx, m, item=14):
    """Each group listed under a finding: the finding recomputed for some group of that label
    (a label may name two groups) must be the one listed."""
    plan, p = ctx.plan, Problems()
    word = m["w1"] or m["w2"] or m["w3"] or m["w4"]
    groups = ctx.report.get("trial_groups") or []
    for label, _ in re.findall(r"'([^']*)' ([0-9.]+)x", m["list"]):
        wants = []
        for g in (g for g in groups if g.get("label") == label and g.get("vs_baseline")):
            base = groups[g["vs_baseline"]["baseline_group"]]
            sub = Problems()
            a, b = group_aggregates(plan, g, sub), group_aggregates(plan, base, sub)
            if a and b:
                wants.append((expected_verdict(a, b)[0], len(a), len(b)))
        if p.need(wants, f"no trial group {label!r} with a baseline"):
            p.need(any(word.startswith(w) for w, _, _ in wants),
                   f"{label!r} listed as '{word}' where "
                   + ", ".join(f"{m_} vs {n} trials give '{w}'" for w, m_, n in wants), item)
    return p


def check_one_trial(ctx, m, item=None):
    p = Problems()
    most = max((len(g) for g in ctx.plan.groups), default=0)
    p.need(most <= 1, f"a run has {most} trials")
    return p


def check_extremes(ctx, m, item=None):
    plan, p = ctx.plan, Problems()
    hi, lo = plan.run(int(m["i"])), plan.run(int(m["j"]))
    if not p.need(hi and lo, "no such run"):
        return p
    aggs = {r.index: r.aggregate for r in plan.runs.values() if r.aggregate > 0}
    p.need(hi.aggregate == max(aggs.values()), f"run {hi.index} is not the highest")
    p.need(lo.aggregate == min(aggs.values()), f"run {lo.index} is not the lowest")
    p.number(close_gbps, m["x"], hi.aggregate, "highest aggregate")
    p.number(close_gbps, m["y"], lo.aggregate, "lowest aggregate")
    p.number(close_ratio, m["r"], hi.aggregate / lo.aggregate if lo.aggregate else None, "ratio")
    return p


def check_status_line(ctx, m, item=None):
    p = Problems()
    r = ctx.plan.run(int(m["i"]))
    p.need(r and r.status == m["status"], f"run {m['i']} status is {r.status if r else 'none'}")
    return p


def check_nothing(ctx, m, item=None):
    return Problems()


def check_flag(flag, expect):
    def check(ctx, m, item=None):
        p = Problems()
        p.need(bool(ctx.plan.results.get(flag)) == expect, f"results.{flag} is "
               f"{ctx.plan.results.get(flag)}")
        return p
    return check


def check_baseline_line(ctx, m, item=None):
    p = Problems()
    r = ctx.plan.run(int(m["i"]))
    p.need(r and r.label == m["label"], f"run {m['i']} is labelled {r.label if r else 'none'!r}")
    return p


# --- old shapes: the catalogue's conditions, then the old wording itself

def old(check, item, reason):
    """An old shape: its findings against the catalogue's conditions, or, where those hold,
    that the catalogue words it otherwise."""
    def run_check(ctx, m):
        p = check(ctx, m) if check else Problems()
        if not p:
            p.append((f"old wording: {reason}", item))
        return p
    return run_check


def old_waiting(ctx, m):
    run, p = ctx.run, Problems()
    reasons = [waiting_holds(run, d) for d in run.devices]
    if not p.need(run.devices, "no device-timed copies", 1):
        return p
    if not any(ok for ok, _ in reasons):
        p.append(("no device where calls overlapped but transfers did not: "
                  + " | ".join(why for _, why in reasons)
                  + f" (across devices: peak {run.across_devices_peak}, concurrency "
                  f"{run.across_devices_concurrency or 0:.2f})", 1))
    return p


def old_calls_serialized(ctx, m):
    run, p = ctx.run, Problems()
    p.need(len(workers_with_two(run)) >= 2, "fewer than 2 workers with 2+ copies", 2)
    p.need(run.host_peak == 1, f"host-side peak {run.host_peak} with the warm-ups in flight "
           f"(measured copies only: {run.host_peak_measured})", 2)
    cause = m["cause"]
    if "lock" in cause:
        p.append(("'a lock' named: no switch for a lock exists in the settings", 2))
    if "the GIL, held" in cause and not any(o.host_peak >= 2 for o in gil_release_partners(ctx)):
        p.append(("the GIL named as cause without a gil switch whose release run overlapped", 2))
    return p


def old_short(ctx, m):
    run, p = ctx.run, Problems()
    p.need(run.gil != "hold", "gil = hold: the held GIL spreads the first calls, it is the cause",
           13)
    p.need(run.host_peak == 1, f"host-side peak {run.host_peak} with warm-ups in flight", 2)
    p50 = median(run.call_ns)
    p.need(p50 < run.start_spread / 2, f"call p50 {show(p50, 'ns')} not under half the spread "
           f"{show(run.start_spread, 'ns')}", 13)
    return p


def old_unfair(ctx, m):
    run, p = ctx.run, Problems()
    j = run.jain_service
    p.need(j is not None and j < JAIN_UNEQUAL, f"Jain over each worker's bytes per transfer time "
           f"is {'none' if j is None else f'{j:.3f}'}: equal service (the old figure divides by "
           "each worker's own window: who went first)", 7)
    return p


def old_scaling(kind, item):
    def check(ctx, m):
        run, p = ctx.run, Problems()
        pairs, s, mine, ones, ref = scaling_facts(ctx.plan, run)
        if not p.need(len(pairs) >= 2, f"{len(pairs)} trial(s): the catalogue says nothing "
                      "with one (the table shows the ratio)", item):
            return p
        r = ctx.plan.run(int(m["r"]))
        p.need(r is not None and r.trial == run.trial,
               f"compared with run {m['r']} of trial {r.trial if r else '?'}, this run is trial "
               f"{run.trial}", 6)
        apart, practical = bands_apart(mine, ones), abs(s - 1) >= PRACTICAL
        if kind == "within":
            p.need(not (apart and practical), f"'within noise, no gain' but every trial apart "
                   f"({gb(mine)} vs {gb(ones)} GB/s, median ratio {s:.3f})", item)
        else:
            p.need(apart, f"'fewer' but the trials overlap ({gb(mine)} vs {gb(ones)} GB/s)", item)
            p.need(practical, f"'fewer' for a median ratio {s:.4f}: under 1 %", item)
        return p
    return check


def old_stall(ctx, m):
    run, p = ctx.run, Problems()
    s, call, med = slowest_parts(run)
    p.need(call >= STALL_FACTOR * med, "the slowest call is under 5x the median", 4)
    if not s.timed:
        p.append(("'erratic' without device times: waiting and moving bytes cannot be told "
                  "apart", 4))
        return p
    transfer, med_t = s.de - s.ds, median(run.transfer_ns)
    p.need(transfer > QUEUED_TRANSFER_FACTOR * med_t,
           f"the slowest call was {show(s.ds - s.hs, 'ns')} waiting and {show(transfer, 'ns')} "
           f"moving bytes (median transfer {show(med_t, 'ns')}): queued, not erratic", 4)
    return p


def old_gil_released(ctx, m):
    run, p = ctx.run, Problems()
    p.need(run.gil == "release", f"gil = {run.gil}", 11)
    p.need(not run.batched, "a batched w.copy(count=n) releases the GIL once for all copies, "
           "not during each copy", 11)
    return p


def old_same_aggregate(ctx, m):
    m2 = {"b": m["b"], "k": m["k"], "clause": "hand-off effect"}
    return check_same_aggregate(ctx, _Match(m2))


def with_kind(m, kind):
    return _Match({**m.groupdict(), "kind": kind})


class _Match(dict):
    def __getitem__(self, key):
        return dict.get(self, key)

    def groupdict(self):
        return self


def old_gap_decides(ctx, m):
    plan, p = ctx.plan, Problems()
    serial = [r for r in plan.runs.values() if r.serialized_devices and r.gaps]
    low = [r for r in serial if r.mean_handoff_rate < 0.5]
    high = [r for r in serial if r.mean_handoff_rate >= 0.5]
    switched = [(a, b) for a in low for b in high if a.trial == b.trial
                and plan.differs_only_in(a, b, ["threads.between"])]
    if not p.need(switched, "no kept/handed pair of runs differs in threads.between alone "
                  f"(kept: runs {[r.index for r in low]}, handed: {[r.index for r in high]})", 12):
        return p
    for a, b in switched:
        check_gap_pair(a, b, p, 12)
    return p


def old_warmups(ctx, m):
    return check_warmups(ctx, _Match({"n": m["n"], "runs": m["runs"], "old": True}))


# --- the shape table

RUN_SHAPES = [
    Shape("no-copies", r"no measured copies$", check_no_copies),
    Shape("calls-one-at-a-time",
          r"calls never overlapped: one copy call in flight at a time \(host-side peak 1, "
          r"warm-ups included\) with (?P<n>\d+) workers(?P<cause>: the GIL held across the call "
          r"serialized them: run (?P<k>\d+), the same with gil = release, overlapped \(host-side "
          r"peak (?P<p>\d+)\)|; run (?P<k2>\d+), the same with gil = release, did not overlap in "
          r"every trial either, so the held GIL is not shown to be what serialized them|; gil = "
          r"hold, and no run of this plan differs from it in gil alone, so no cause is named)?$",
          check_calls_one_at_a_time),
    Shape("calls-short",
          r"calls never overlapped, but they had little chance to: "
          r"a call took p50 (?P<t>" + DUR + r") while the workers' first calls spread over "
          r"(?P<s>" + DUR + r")$", check_calls_short),
    Shape("device-one-at-a-time",
          r"copies never overlapped on device (?P<d>\d+): device-side peak 1 with (?P<n>\d+) "
          r"workers \(warm-ups included\)$", check_device_one_at_a_time),
    Shape("waiting-not-moving",
          r"on device (?P<d>\d+) calls overlapped \(host-side concurrency (?P<x>[0-9.]+)\) but "
          r"transfers did not \(device-side (?P<y>[0-9.]+), peak 1\): calls waited (?P<t>" + DUR +
          r") \(p50, (?P<p>[0-9.]+ ?%) of a call\) before the device started, so per-copy "
          r"bandwidth there measures waiting$", check_waiting_not_moving),
    Shape("calls-wait",
          r"calls wait (?P<t>" + DUR + r") \(p50\) before the device starts moving bytes: "
          r"(?P<p>[0-9.]+ ?%) of a call's p50 (?P<c>" + DUR + r")$", check_calls_wait),
    Shape("hand-off",
          r"device (?P<d>\d+) changed hands after (?P<pct>[0-9.]+ ?%) of consecutive copies "
          r"\(hand-off rate (?P<r>[0-9.]+), mean run length (?P<l>[0-9.]+)\): "
          r"(?:workers? (?P<kept>" + LIST + r") kept it \(gap p50 (?P<tk>" + DUR + r")\), )?"
          r"(?:workers? (?P<handed>" + LIST + r") handed it off after about one copy \(gap p50 "
          r"(?P<th>" + DUR + r")\), )?(?:\S+ workers return to the driver after p50 (?P<g>" + DUR +
          r") \(p90 (?P<h>" + DUR + r")\)|no worker made two copies \(no gap measured\))$",
          check_hand_off),
    Shape("returned-sooner-kept",
          r"on device (?P<d>\d+) the workers that returned sooner kept it: every worker that "
          r"kept it returned at least 1\.5x sooner \(gap p50\) than every worker that handed it "
          r"off$", check_returned_sooner),
    Shape("gil-released",
          r"gil = release: the GIL was not held during the copy calls, so it did not serialize "
          r"them$", check_gil_released),
    Shape("per-context-in-run",
          r"device (?P<d>\d+): transfers of (?P<n>\d+) CUDA contexts overlapped \(peak "
          r"(?P<p>\d+)\) but never two within one context, though a context held up to (?P<w>\d+) "
          r"workers$",
          check_per_context),
    Shape("same-aggregate-slower-copies",
          r"aggregate within noise of baseline \(run (?P<b>\d+)\) but per-copy p50 "
          r"(?P<k>[0-9.]+)x lower: each copy took longer without the bytes per second falling"
          r"(?P<clause>; the copies took turns on the device \(hand-off rate [0-9.]+\)|; the "
          r"copies shared the device \(device-side concurrency [0-9.]+\))?$",
          check_same_aggregate),
    Shape("slowest-call",
          r"(?P<kind>queued): the slowest call took (?P<t>" + DUR + r") \([0-9.]+x the median "
          r"(?P<m>" + DUR + r")\): (?P<w>" + DUR + r") waiting before the device started, (?P<x>" +
          DUR + r") moving bytes \(a transfer's median is (?P<y>" + DUR + r")\)$", check_slowest),
    Shape("slowest-call",
          r"(?P<kind>erratic): the slowest transfer took (?P<x>" + DUR + r") \([0-9.]+x the "
          r"median transfer (?P<y>" + DUR + r")\) in a call of (?P<t>" + DUR + r")$",
          check_slowest),
    Shape("slowest-call",
          r"the slowest call took (?P<t>" + DUR + r") \([0-9.]+x the median "
          r"(?P<m>" + DUR + r")\); without device times waiting and moving bytes cannot be told "
          r"apart$", lambda ctx, m: check_slowest(ctx, with_kind(m, "untimed"))),
    Shape("unequal-service",
          r"unequal service: Jain (?P<j>[0-9.]+) over the workers' bytes per second of their own "
          r"transfer time; worker (?P<w>\d+) moved its bytes at (?P<p>[0-9.]+ ?%) of the "
          r"workers' mean rate$", check_unequal_service),
    Shape("unequal-service",
          r"unequal service: worker (?P<w>\d+) made no measured copy \(Jain (?P<j>[0-9.]+) over "
          r"the workers' bytes per second of their own transfer time\)$", check_unequal_service),
    Shape("scaling",
          r"more threads, (?P<kind>more|fewer) bytes per second: (?P<s>[0-9.]+)x for \d+ threads "
          r"against one thread \('(?P<label>[^']*)'\) \(median of (?P<k>\d+) trials' ratios; every "
          r"trial apart: (?P<a>[0-9.]+)-(?P<b>[0-9.]+) vs (?P<c>[0-9.]+)-(?P<d>[0-9.]+) GB/s\)$",
          check_scaling),
    Shape("scaling",
          r"scaling (?P<s>[0-9.]+)x for \d+ threads against one thread \('(?P<label>[^']*)'\): no "
          r"practical difference \(under 1 ?%\)$",
          lambda ctx, m: check_scaling(ctx, with_kind(m, "none"))),
    Shape("scaling",
          r"scaling (?P<s>[0-9.]+)x for \d+ threads against one thread \('(?P<label>[^']*)'\): the "
          r"trials overlap "
          r"\((?P<a>[0-9.]+)-(?P<b>[0-9.]+) vs (?P<c>[0-9.]+)-(?P<d>[0-9.]+) GB/s\): no "
          r"consistent difference in (?P<k>\d+) trials$",
          lambda ctx, m: check_scaling(ctx, with_kind(m, "overlap"))),
    # --- old shapes (issue 32)
    Shape("waiting-not-moving",
          r"host-side concurrency [0-9.]+ but device-side [0-9.]+: calls overlap, transfers do "
          r"not; per-copy bandwidth measures waiting$",
          old(old_waiting, 1, "host and device concurrency of the whole run, device-side "
              "averaged over devices"), old=True, item=1),
    Shape("calls-one-at-a-time",
          r"calls serialized: never two copies in flight \(host-side peak 1\) with (?P<n>\d+) "
          r"workers: (?P<cause>.+)$",
          old(old_calls_serialized, 2, "peak over measured copies only; a cause without a "
              "switch"), old=True, item=2),
    Shape("calls-short",
          r"copies never overlapped because they are short: a copy took p50 " + DUR + r" while "
          r"the workers' first calls spread over " + DUR + r", so there was nothing to serialize$",
          old(old_short, 13, "'short, nothing to serialize'"), old=True, item=13),
    Shape("device-one-at-a-time",
          r"copies serialized on device (?P<d>\d+): device-side concurrency [0-9.]+ \(peak 1\) "
          r"with (?P<n>\d+) workers$",
          old(check_device_one_at_a_time, None, "'serialized' over measured copies only"),
          old=True),
    Shape("returned-sooner-kept",
          r"on device (?P<d>\d+) the workers that returned sooner kept it: every worker that "
          r"kept it returned faster than every worker that handed it off$",
          old(check_returned_sooner, 15,
              "no 1.5x margin"), old=True, item=15),
    Shape("gil-released",
          r"the GIL is released during each copy \(gil = release\): it does not serialize the "
          r"copies; it only lengthens the gap before the next call$",
          old(old_gil_released, 11, "'during each copy'; 'it only lengthens the "
              "gap' names a mechanism no switch shows"), old=True, item=11),
    Shape("per-context-in-run",
          r"device (?P<d>\d+): copies of (?P<n>\d+) CUDA contexts overlapped \(peak (?P<p>\d+), "
          r"concurrency [0-9.]+\) but never two within one context: the serialization is per "
          r"context$", old(check_per_context, None, "'the serialization is per context' names "
                           "a cause within one run"), old=True),
    Shape("same-aggregate-slower-copies",
          r"aggregate within noise of baseline \(run (?P<b>\d+)\) but per-copy p50 "
          r"(?P<k>[0-9.]+)x lower: copies take longer without moving fewer bytes overall, a "
          r"hand-off effect$", old(old_same_aggregate, 3, "'a hand-off effect'"), old=True, item=3),
    Shape("slowest-call",
          r"erratic: the slowest copy took " + DUR + r" \([0-9.]+x the median " + DUR + r"\); the "
          r"aggregate includes it and the noise bounds of this run widen with it$",
          old(old_stall, 4, "'the slowest copy' without its wait and transfer"), old=True, item=4),
    Shape("unequal-service",
          r"unfair: Jain [0-9.]+, worker \d+ got [0-9.]+ ?% of the bandwidth \(a fair share is "
          r"[0-9.]+ ?%\)$", old(old_unfair, 7, "'unfair' over each worker's own window"),
          old=True, item=7),
    Shape("scaling",
          r"scaling [0-9.]+x for \d+ threads \(vs run (?P<r>\d+)\): within noise of one thread, "
          r"no gain from more threads$",
          old(old_scaling("within", 5), 5, "within-run noise, not the trials"), old=True, item=5),
    Shape("scaling",
          r"scaling [0-9.]+x for \d+ threads \(vs run (?P<r>\d+)\): more threads move fewer "
          r"bytes per second than one$",
          old(old_scaling("fewer", 6), 6, "no trial bands or 1 % floor"), old=True, item=6),
]

SUMMARY_SHAPES = [
    Shape("gap-vs-handoff", r"serialized devices, gap after a copy vs hand-off: (?P<list>.+)$",
          check_gap_vs_handoff),
    Shape("gap-decides",
          r"runs? (?P<a>" + LIST + r") \(threads\.between = [^,]+, gap p50 (?P<t>" + DUR + r")\) "
          r"kept the device \(hand-off rate (?P<x>[0-9.]+)\) and runs? (?P<b>" + LIST + r") "
          r"\(threads\.between = [^,]+, gap p50 (?P<u>" + DUR + r")\) handed it over \(hand-off "
          r"rate (?P<y>[0-9.]+)\): with nothing else changed, the gap after a copy decides who "
          r"gets the device next$", check_gap_decides),
    Shape("context-switch",
          r"with transfer\.context = primary the threads never overlapped on a device \(runs? "
          r"(?P<a>" + LIST + r")\), with per-worker contexts they did \(runs? (?P<b>" + LIST +
          r")\): the serialization is per context$", check_context_switch),
    Shape("warmups-in-window",
          r"(?P<n>\d+) warm-up cop(?:y|ies) overlapped the measurement window \(runs? "
          r"(?P<runs>" + LIST + r")\): the aggregate counts the bytes they moved inside it"
          r"(?:; on runs? (?P<turns>" + LIST + r"), whose devices never had two transfers at "
          r"once, the workers took turns, so one worker's warm-up ran inside another's measured "
          r"copies)?$",
          check_warmups),
    Shape("verdicts",
          r"(?:(?P<w1>faster|slower) than the baseline of its sweep point|a difference from the "
          r"baseline of its sweep point under 1 ?% \((?P<w2>negligible)\)|(?P<w3>no difference "
          r"found) from the baseline of its sweep point|(?P<w4>not testable) with these trial "
          r"counts \(the test cannot reach p < 0\.05; run with --trials 5\)): "
          r"(?P<list>'[^']*' [0-9.]+x(?:, '[^']*' [0-9.]+x)*)$", check_verdict_list),
    Shape("bookkeeping", r"one trial per run: drift between runs is unknown, so no run is called "
          r"faster or slower; run with --trials 5 \(or scenario\.trials\) to judge$",
          check_one_trial),
    Shape("bookkeeping", r"input: .+$", check_nothing),
    Shape("bookkeeping", r".*\bjournal\b.*\bleft out\b.*$", check_nothing),
    Shape("bookkeeping", r"interrupted: the results are partial$",
          check_flag("interrupted", True)),
    Shape("bookkeeping", r"incomplete: .+$", check_flag("complete", False)),
    Shape("bookkeeping", r"sized for this machine \(--fit\): .+$", check_nothing),
    Shape("bookkeeping", r"no run finished ok with measured copies: nothing to compare$",
          check_nothing),
    Shape("bookkeeping", r"baseline: run (?P<i>\d+) \((?P<label>.*)\)$", check_baseline_line),
    Shape("bookkeeping", r"baselines, one per sweep point: '.*'$", check_nothing),
    Shape("bookkeeping",
          r"highest aggregate: run (?P<i>\d+) \(.*\) (?P<x>[0-9.]+) GB/s; lowest: run (?P<j>\d+) "
          r"\(.*\) (?P<y>[0-9.]+) GB/s \((?P<r>[0-9.]+)x apart\)$", check_extremes),
    Shape("bookkeeping",
          r"aggregate (?P<side>inside|outside) the noise of its own run and the baseline's: "
          r"runs? (?P<runs>" + LIST + r")(?: \(drift between runs not included\))?$",
          check_noise_lists),
    Shape("bookkeeping", r"run (?P<i>\d+) \(.*\) (?P<status>failed|skipped|timeout|interrupted)"
          r"(?::.*)?$", check_status_line),
    Shape("same-aggregate-slower-copies",
          r"per-copy bandwidth understates runs? (?P<runs>" + LIST + r"): same aggregate, slower "
          r"copies$", check_understates),
    # --- old shapes
    Shape("same-aggregate-slower-copies",
          r"per-copy bandwidth understates runs? (?P<runs>" + LIST + r"): same aggregate, slower "
          r"copies (?P<handoff>\(hand-off\))$",
          old(check_understates, 3, "'(hand-off)' named without its numbers"), old=True, item=3),
    Shape("gap-decides",
          r"every run whose workers returned within " + DUR + r" kept the device, every run "
          r"whose workers returned after " + DUR + r" or more handed it over: the gap decides who "
          r"gets the device next$", old(old_gap_decides, 12, "names no runs and no switch"),
          old=True, item=12),
    Shape("context-switch",
          r"threads sharing the primary context never overlapped on a device \(runs? (?P<a>" +
          LIST + r")\) while workers with their own context did \(runs? (?P<b>" + LIST + r")\): "
          r"the serialization is per context$",
          old(check_context_switch, 10, "process workers counted as own contexts"), old=True,
          item=10),
    Shape("warmups-in-window",
          r"(?P<n>\d+) warm-up cop(?:y|ies) ran inside the measurement window \(runs? (?P<runs>" +
          LIST + r"): workers took turns, so one worker's warm-up overlapped another's measured "
          r"copies\); the aggregate counts the bytes they moved$",
          old(old_warmups, 9, "'workers took turns' for every listed run"), old=True, item=9),
]

TABLE_SHAPES = [
    Shape("shared-machine",
          r"shared machine: other processes kept (?P<x>[0-9.]+) of (?P<n>\d+) CPUs busy while "
          r"(?P<span>the copies ran|the run's workers ran \(buffers prepared and copies made\)) "
          r"\(xferlab (?P<y>[0-9.]+); \+-(?P<res>[0-9.]+) CPUs at /proc/stat's 10 ms ticks over "
          r"(?P<w>" + DUR + r")\), the hypervisor took (?P<s>[0-9.]+)% of CPU time \(steal\)"
          r"(?P<mpi>; the other MPI ranks on this host count as other processes)?: the copies may "
          r"have waited for CPUs or memory bandwidth they shared$", check_shared_machine),
    # --- the old shape (the table printed it before the catalogue)
    Shape("shared-machine",
          r"shared machine: other processes kept (?P<x>[0-9.]+) of (?P<n>\d+) CPUs busy while "
          r"[^;]+\(xferlab [0-9.]+\), the hypervisor .+$",
          old(lambda ctx, m: check_shared_machine(ctx, m), 8, "without the tick resolution"),
          old=True, item=8),
]


def classify(sentence, shapes):
    for shape in shapes:
        m = shape.regex.match(sentence)
        if m:
            return shape, m
    return None, None


# ------------------------------------------------------------------------------------------
# Mechanism words: only where the matched shape's own text has them

def stray_words(sentence, shape):
    """Mechanism words the sentence has and its shape's own text does not (labels, in quotes
    or in parentheses after a run number, are left out)."""
    text = re.sub(r"'[^']*'", "''", sentence)
    text = re.sub(r"(run \d+) \([^)]*\)", r"\1", text)
    return [w for w in MECHANISM_WORDS if w in text and w not in shape.pattern]


# ------------------------------------------------------------------------------------------
# Rendering and auditing one file

def load_results(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def render(xferlab, path, fmt):
    """`xferlab report PATH --format fmt` (xz files go through a decompressed copy)."""
    tmp = None
    if path.endswith(".xz"):
        tmp = tempfile.NamedTemporaryFile(suffix=".results.json", delete=False)
        with lzma.open(path, "rb") as f:
            tmp.write(f.read())
        tmp.close()
        path = tmp.name
    try:
        out = subprocess.run([xferlab, "report", path, "--format", fmt], capture_output=True,
                             text=True, check=False)
        return out.stdout, out.stderr, out.returncode
    finally:
        if tmp:
            os.unlink(tmp.name)


def table_sentences(text):
    """(runs, sentence) for each 'shared machine:' line of the table, joined across wraps."""
    out, runs, lines = [], [], text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head = re.match(r"Run (\d+):", line)
        group = re.match(r"  runs? ([0-9, ]+):?$", line)
        if head:
            runs = [int(head.group(1))]
        elif group:
            runs = numbers_in(group.group(1))
        body = line.lstrip()
        if body.startswith("shared machine:"):
            indent = len(line) - len(body)
            parts = [body]
            while i + 1 < len(lines) and len(lines[i + 1]) - len(lines[i + 1].lstrip()) > indent \
                    and lines[i + 1].strip():
                i += 1
                parts.append(lines[i].strip())
            out.append((list(runs), " ".join(parts)))
        i += 1
    return out


def printed_ids(shape, m, sentence):
    """The rule id of a classified sentence, and with its kind where the rule has kinds
    (slowest-call/queued, scaling/more, ...). An old shape counts as its rule id only."""
    ids = {shape.rule}
    if shape.old:
        return ids
    kind = (m.groupdict() or {}).get("kind")
    if shape.rule == "slowest-call":
        kind = kind or "untimed"
    if shape.rule == "scaling":
        kind = kind or ("none" if "no practical difference" in sentence else "overlap")
    if kind:
        ids.add(f"{shape.rule}/{kind}")
    return ids


def expectations(path):
    """The entry of expected.json next to `path` (tests/fixtures/explanations), if any."""
    folder, base = os.path.split(path)
    name = re.sub(r"\.results\.json(\.xz)?$", "", base)
    try:
        with open(os.path.join(folder, "expected.json"), encoding="utf-8") as f:
            return json.load(f).get(name)
    except (OSError, ValueError):
        return None


class Auditor:
    def __init__(self, xferlab):
        self.xferlab = xferlab
        self.findings = []
        self.printed = set()        # rule ids printed in the file (old shapes included)
        self.printed_new = set()    # rule ids printed in a catalogue shape

    def audit(self, path):
        self.printed, self.printed_new = set(), set()
        self.audit_sentences(path)
        self.check_expected(path)

    def check_expected(self, path):
        """A fixture's expected.json entry: rules that must print a sentence, and rules that
        must stay silent, under the catalogue."""
        want = expectations(path)
        if not want:
            return
        for rule in want.get("fire", []):
            if rule not in self.printed_new:
                self.add(path, "file", rule, "(nothing printed)", "the catalogue's conditions "
                         "hold in this fixture: a sentence must fire", want.get("item"))
        for rule in want.get("silent", []):
            if rule in self.printed:
                self.add(path, "file", rule, "(printed)", "this fixture is built so that this "
                         "rule stays silent", want.get("item"))

    def audit_sentences(self, path):
        results = load_results(path)
        out, err, rc = render(self.xferlab, path, "json")
        try:
            report = json.loads(out)
        except ValueError:
            self.add(path, "file", "render", "", f"xferlab report failed (exit {rc}): "
                     f"{err.strip()[:200]}")
            return
        table, _, _ = render(self.xferlab, path, "table")
        self.audit_report(path, results, report, table)

    def audit_report(self, name, results, report, table=""):
        """Every sentence of a rendered report (`--format json`, and the table's own lines)
        against the raw results it was rendered from."""
        plan = Plan(results)
        for rr in report.get("runs", []):
            self.audit_run(name, plan, report, rr)
        for sentence in report.get("summary", []):
            self.audit_sentence(name, "summary", Ctx(plan, report), sentence, SUMMARY_SHAPES)
        self.audit_verdicts(name, plan, report)
        for runs, sentence in table_sentences(table):
            for i in runs:
                ctx = Ctx(plan, report, plan.run(i))
                self.audit_sentence(name, f"run {i}", ctx, sentence, TABLE_SHAPES)

    def audit_run(self, name, plan, report, rr):
        run = plan.run(rr["index"])
        analysis = rr.get("analysis") or {}
        said = analysis.get("explanations") or []
        ctx = Ctx(plan, report, run, said)
        for sentence in said:
            self.audit_sentence(name, f"run {run.index}", ctx, sentence, RUN_SHAPES + TABLE_SHAPES)
        vb = analysis.get("vs_baseline")
        if vb and vb.get("verdict"):
            base = plan.run(vb.get("baseline_run"))
            for why, item in check_noise_verdict(plan, run, base, vb["verdict"]):
                self.add(name, f"run {run.index}", "bookkeeping", vb["verdict"], why, item)

    def audit_verdicts(self, name, plan, report):
        groups = report.get("trial_groups") or []
        for g in groups:
            vb = g.get("vs_baseline")
            if not vb or not vb.get("verdict"):
                continue
            i = vb.get("baseline_group")
            base = groups[i] if i is not None and i < len(groups) else {}
            word = re.match(r"[0-9.]+x, (faster|slower|no difference found|negligible|"
                            r"not testable|not tested)", vb["verdict"])
            ids = {"verdicts"} | ({f"verdicts/{word.group(1)}"} if word else set())
            self.printed |= ids
            self.printed_new |= ids
            for why, item in check_verdict_text(plan, vb["verdict"], g, base):
                self.add(name, f"group '{g['label']}'", "verdicts", vb["verdict"], why, item)

    def audit_sentence(self, name, where, ctx, sentence, shapes):
        shape, m = classify(sentence, shapes)
        if shape is None:
            self.add(name, where, "unknown", sentence, "no catalogue shape matches")
            return
        self.printed |= printed_ids(shape, m, sentence)
        if not shape.old:
            self.printed_new |= printed_ids(shape, m, sentence)
        try:
            problems = shape.check(ctx, m)
        except Exception as exc:  # a check that cannot recompute is a finding, not a crash
            problems = [(f"could not recompute: {type(exc).__name__}: {exc}", shape.item)]
        if not shape.old:
            problems = list(problems) + [(f"mechanism word '{w}' outside the catalogue's text",
                                          shape.item) for w in stray_words(sentence, shape)]
        for why, item in problems:
            self.add(name, where, shape.rule, sentence, why, item)

    def add(self, name, where, rule, sentence, why, item=None):
        self.findings.append(Finding(name, where, rule, sentence, why, item))


def item_counts(findings):
    counts = collections.Counter(f.item for f in findings if f.item)
    wording = collections.Counter(f.item for f in findings
                                  if f.item and f.why.startswith("old wording"))
    return counts, wording


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xferlab", required=True, help="the xferlab binary to render with")
    parser.add_argument("--by-item", action="store_true",
                        help="also print the findings per item of issue 32")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    auditor = Auditor(args.xferlab)
    for path in args.files:
        auditor.audit(path)
    for f in auditor.findings:
        print(f.line())
    counts, wording = item_counts(auditor.findings)
    if args.by_item:
        for item in range(1, 16):
            print(f"#{item}: {counts.get(item, 0)} findings "
                  f"({wording.get(item, 0)} old wording only)")
    print(f"{len(auditor.findings)} finding(s) in {len(args.files)} file(s)")
    return 1 if auditor.findings else 0


if __name__ == "__main__":
    sys.exit(main())
