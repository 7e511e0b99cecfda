"""The explanations audit's own reading of the catalogue (docs/reading-reports.md,
"Explanations"): for each run, the findings each per-run rule requires of it, and the summary's
findings, derived from the facts of audit_facts.py and the catalogue's constants. Each function
is one row of the catalogue: its data, its switch and its margin, and the sentence shape it
prints. Standard library only.
"""

import math

from audit_findings import Found, render_number, runs_text
from audit_stats import median, percentile, sign_test_p

# ------------------------------------------------------------------------------------------
# Per run


def derive_run(plan, run):
    """Every finding the catalogue requires of `run`, in the catalogue's order. A run with no
    measured copy has that to say and nothing else."""
    if run.copies == 0:
        return no_copies(plan, run)
    out = []
    for rule in PER_RUN:
        out.extend(rule(plan, run))
    for f in out:
        f.run = run.index
    return out


def quoted(run):
    return f"'{run.label}'"


def machine_shared(plan, run):
    """The shared-machine rule's condition (catalogue: shared-machine)."""
    c, h = plan.c, run.host_activity
    if not h:
        return False
    window_s = h.get("window_ns", 0) / 1e9
    cpus = h.get("cpus", 0)
    if window_s <= 0 or cpus <= 0:
        return False
    resolution = 2 * cpus * c.tick_seconds / window_s
    others = (h.get("others_cpus", 0) - resolution >= c.notable_others
              and h.get("busy_cpus", 0) >= h.get("own_cpus", 0))
    steal = (h.get("steal_fraction", 0) >= c.notable_steal
             and window_s >= c.steal_ticks_per_cpu * c.tick_seconds)
    return others or steal


def say_evidence(plan, runs, trials, f):
    """What a cause rests on where it is short of the standard (catalogue: min_cause_trials, and
    runs flagged by shared-machine)."""
    c = plan.c
    if trials < c.min_cause_trials:
        f.say("; from one trial only (a cause needs {min_trials} trials)" if trials == 1
              else "; from {cause_trials} trials only (a cause needs {min_trials})")
        f.figure("cause_trials", trials, "int").figure("min_trials", c.min_cause_trials, "int")
    flagged = sum(1 for r in runs if machine_shared(plan, r))
    if flagged:
        f.say("; {flagged} of the {rests_on} runs it rests on ran on a shared machine, which may "
              "have moved their figures").figure("flagged", flagged, "int").figure(
                  "rests_on", len(runs), "int")
    return f


def runs_by_label(plan, indexes):
    """The runs at `indexes` as a reader compares them (catalogue: a list of runs)."""
    indexes = sorted(set(indexes))
    if len(indexes) == len(plan.runs) and len(indexes) > 1:
        return "every run"
    if not any(r.trial > 1 for r in plan.runs):
        return runs_text(indexes)
    labels = {}
    for r in plan.runs:
        here, total = labels.get(r.label, (0, 0))
        labels[r.label] = (here + (r.index in indexes), total + 1)
    if len(labels) >= 3 and all(here for here, _ in labels.values()):
        return "every label (every trial but " + ", ".join(
            f"'{label}' in {here} of {total}" for label, (here, total) in labels.items()
            if here < total) + ")"
    return ", ".join(f"'{label}' (every trial)" if here == total
                     else f"'{label}' ({here} of {total} trials)"
                     for label, (here, total) in labels.items() if here)


def no_copies(plan, run):
    if run.status == "skipped":
        return []
    return [Found("no-copies", run=run.index).say("no measured copies")]


def short_calls(run):
    return run.call_p50 < run.start_spread / 2


def calls_one_at_a_time(plan, run):
    workers = run.workers_with(2)
    if workers < 2 or run.host_peak_in_flight != 1:
        return []
    hold = run.gil == "hold"
    if not hold and short_calls(run):
        return []                       # calls-short says it
    f = Found("calls-one-at-a-time").say(
        "calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
        "included) with {workers} workers").claim("workers", str(workers))
    if hold:
        gil_cause(plan, run, f)
    return [f]


def release_partner(plan, trial_run):
    """A run of the same trial that differs in gil alone, with gil = release, and overlapped
    where this one did not (None: none)."""
    if trial_run.host_peak_in_flight != 1:
        return None
    return next((o for o in plan.switched(trial_run, "gil")
                 if o.gil == "release" and o.host_peak_in_flight >= 2), None)


def gil_cause(plan, run, f):
    trials = plan.trials_of(run)
    partners = [release_partner(plan, t) for t in trials]
    if partners and all(partners):
        own = release_partner(plan, run)
        f.say(": the GIL held across the call serialized them: {partner}, the same with gil = "
              "release, overlapped (host-side peak {peak})").claim("partner", quoted(own)).figure(
                  "peak", own.host_peak_in_flight, "int")
        say_evidence(plan, trials + partners, len(partners), f)
        return
    switched = [o for o in plan.switched(run, "gil") if o.gil == "release"]
    if switched:
        f.say("; {partner}, the same with gil = release, did not overlap in every trial either, "
              "so the held GIL is not shown to be what serialized them").claim(
                  "partner", quoted(switched[0]))
        return
    f.say("; gil = hold, and no run of this plan differs from it in gil alone, so no cause is "
          "named")


def calls_short(plan, run):
    if (run.workers_with(2) < 2 or run.host_peak_in_flight != 1 or run.gil == "hold"
            or not short_calls(run) or not run.calls_hold_transfers):
        return []
    return [Found("calls-short").say(
        "calls never overlapped, but they had little chance to: a call took p50 {call} while the "
        "workers' first calls spread over {spread}").figure("call", run.call_p50, "duration")
        .figure("spread", run.start_spread, "duration")]


def device_one_at_a_time(plan, run):
    out = []
    for d in run.devices.values():
        if d.workers < 2 or d.copies < 2 or d.peak_in_flight != 1:
            continue
        out.append(Found("device-one-at-a-time").say(
            "copies never overlapped on device {device}: device-side peak 1 with {workers} "
            "workers (warm-ups included)").claim("device", str(d.device))
            .claim("workers", str(d.workers)))
    return out


def waits_on_device(d, c):
    return (d.workers >= 2 and d.host_concurrency >= c.overlap_host_min
            and d.host_concurrency >= c.overlap_factor * d.concurrency
            and d.peak_in_flight == 1 and d.call_p50 > 0
            and d.wait_p50 >= c.wait_fraction * d.call_p50 and d.wait_busy >= c.wait_busy)


def waiting_not_moving(plan, run):
    out = []
    if not run.calls_hold_transfers:
        return out
    for d in run.devices.values():
        if not waits_on_device(d, plan.c):
            continue
        out.append(Found("waiting-not-moving").say(
            "on device {device} calls overlapped (host-side concurrency {host}) but transfers did "
            "not (device-side {dev}, peak 1): calls waited {wait} (p50, {share} of a call) before "
            "the device started, another transfer on it for {busy} of that wait, so per-copy "
            "bandwidth there measures waiting").claim("device", str(d.device))
            .figure("host", d.host_concurrency, "f1").figure("dev", d.concurrency, "f1")
            .figure("wait", d.wait_p50, "duration")
            .figure("share", d.wait_p50 / d.call_p50, "percent")
            .figure("busy", d.wait_busy, "percent"))
    return out


def calls_wait(plan, run):
    c = plan.c
    wait, call = run.pre_device_p50, run.timed_call_p50
    if (not run.calls_hold_transfers or wait is None or not call or call <= 0
            or wait < c.wait_fraction * call):
        return []
    if any(waits_on_device(d, c) for d in run.devices.values()):
        return []                       # waiting-not-moving said it
    return [Found("calls-wait").say(
        "calls wait {wait} (p50) before the device starts moving bytes: {share} of a call's p50 "
        "{call}").figure("wait", wait, "duration").figure("share", wait / call, "percent")
        .figure("call", call, "duration")]


def idle_window(plan, run):
    if run.copies < 2 or run.idle_fraction < plan.c.idle_share or not run.calls_hold_transfers:
        return []
    return [Found("idle-window").say(
        "no copy call was in flight for {idle} of the measurement window (the workers' first "
        "calls spread over {spread}): the aggregate divides by time in which nothing moved")
        .figure("idle", run.idle_fraction, "percent").figure("spread", run.start_spread,
                                                             "duration")]


def keepers_and_handers(run, d, c):
    """The workers that kept device d (run length >= keep_run_length over min_sequence_copies+
    copies there) and those that handed it off (<= hand_run_length)."""
    kept, handed = [], []
    for w in run.workers:
        length, copies = run.run_length(d, w)
        if length is None or copies < c.min_sequence_copies:
            continue
        if length >= c.keep_run_length:
            kept.append(w)
        if length <= c.hand_run_length:
            handed.append(w)
    return kept, handed


def workers_text(workers):
    return ("worker " if len(workers) == 1 else "workers ") + ", ".join(map(str, workers))


def say_side(f, run, workers, did, name):
    f.say("{" + name + "} " + did + " ").claim(name, workers_text(workers))
    p50s = [run.gap_p50(w) for w in workers if run.gap_p50(w) is not None]
    if p50s:
        f.say("(gap p50 {" + name + "_gap})").figure(name + "_gap", median(p50s), "duration")
    else:
        f.say("(no gap measured)")
    f.say(", ")


def hand_off(plan, run):
    out = []
    if not run.calls_hold_transfers:
        return out                      # the queue orders the device, not the gap
    for device in run.serialized_devices:
        h = run.handoffs[device]
        kept, handed = keepers_and_handers(run, device, plan.c)
        f = Found("hand-off").say(
            "device {device} changed hands at rate {rate} (mean run length {length}): {kept} of "
            "{workers} workers kept it, {handed} handed it off after about one copy; ").claim(
                "device", str(device)).figure("rate", h.rate, "f2").figure(
                "length", h.mean_run_length, "f1").figure("kept", len(kept), "int").figure(
                "workers", len(h.workers), "int").figure("handed", len(handed), "int")
        gaps = run.gaps_on(device)      # this device's own, not the run's
        if gaps:
            f.say("{launcher} workers return to the driver after p50 {gap} (p90 {gap90})").claim(
                "launcher", run.launcher).figure("gap", median(gaps), "duration").figure(
                "gap90", percentile(gaps, 0.9), "duration")
        else:
            f.say("no worker made two copies (no gap measured)")
        out.append(f)
    return out


def returned_sooner_kept(plan, run):
    c, out = plan.c, []
    if not run.calls_hold_transfers:
        return out
    for device in run.serialized_devices:
        kept, handed = keepers_and_handers(run, device, c)
        if not kept or not handed:
            continue
        named = kept + handed
        if any(len(run.gaps_by_worker.get(w, [])) < c.min_gaps for w in named):
            continue
        if max(run.gap_p50(w) for w in kept) * c.gap_apart > min(run.gap_p50(w) for w in handed):
            continue
        out.append(Found("returned-sooner-kept").say(
            "on device {device} the workers that returned sooner kept it: every worker that kept "
            f"it returned at least {c.gap_apart:.1f}x sooner (gap p50) than every worker that "
            "handed it off").claim("device", str(device)))
    return out


def gil_released(plan, run):
    if run.gil != "release" or not run.serialized_devices:
        return []
    return [Found("gil-released").say(
        "gil = release: the GIL was not held during the copy calls, so it did not serialize "
        "them")]


def per_context_in_run(plan, run):
    out = []
    for device, h in run.handoffs.items():
        d = run.devices.get(device)
        if (not d or not h.device_clock or h.contexts < 2 or h.context_peak != 1
                or d.peak_in_flight < 2 or h.context_workers < 2):
            continue
        out.append(Found("per-context-in-run").say(
            "device {device}: transfers of {contexts} CUDA contexts overlapped (peak {peak}) but "
            "never two within one context, though a context held up to {workers} workers")
            .claim("device", str(device)).figure("contexts", h.contexts, "int")
            .figure("peak", d.peak_in_flight, "int").figure("workers", h.context_workers, "int"))
    return out


def same_aggregate_slower_copies(plan, run):
    cmp = plan.comparison(run)
    if cmp is None or not cmp.judged or not cmp.inside or cmp.p50_inside:
        return []
    if not 0 < cmp.p50_ratio < 1:
        return []
    if not run.calls_hold_transfers or not plan.run(cmp.baseline).calls_hold_transfers:
        return []                       # a call that returns first times no copy
    group = plan.group_of(run)
    verdict = group.verdict.finding if group and group.verdict else "not tested"
    if verdict in ("faster", "slower"):
        return []                       # the trials said the aggregates differ
    if verdict in ("no difference found", "negligible"):
        f = Found("same-aggregate-slower-copies", "trials").say(
            "aggregate not different from the baseline's across trials ({verdict}, {trials} "
            "trials) but per-copy p50 {lower} lower than the baseline's ({baseline}): each copy "
            "took longer").figure("trials", len(group.aggregates), "int")
        say_fall(plan, group.verdict, f)
    else:
        f = Found("same-aggregate-slower-copies", "one-trial").say(
            "in this trial the aggregate was within the runs' noise (+-{noise}) of the "
            "baseline's ({baseline}) while per-copy p50 was {lower} lower; whether the "
            "aggregates differ is {verdict} with these trials").figure(
                "noise", math.expm1(cmp.bound), "percent")
    f.claim("verdict", verdict).claim("baseline", quoted(plan.run(cmp.baseline))).figure(
        "lower", 1 / cmp.p50_ratio, "ratio")
    rate = run.serialized_rate
    if run.took_turns and rate is not None and rate >= plan.c.handoff_high:
        f.say("; the copies took turns on the device (hand-off rate {rate})").figure(
            "rate", rate, "f2")
    elif run.device_concurrency is not None and run.device_concurrency >= plan.c.overlap_host_min:
        f.say("; the copies shared the device (device-side concurrency {concurrency})").figure(
            "concurrency", run.device_concurrency, "f1")
    return [f]


def say_fall(plan, verdict, f):
    """Whether the aggregate may have fallen: only a 95% CI of the ratio whose low end is at least
    1 - fall_bound says it did not (catalogue: same-aggregate-slower-copies)."""
    if verdict.ci is None:
        f.say(", and with no 95% CI at these trial counts a fall of the aggregate is not ruled "
              "out")
        return
    low, high = verdict.ci
    f.figure("ci_low", low, "ratio").figure("ci_high", high, "ratio")
    if low >= 1 - plan.c.fall_bound:
        f.say(" without the bytes per second falling by more than {bound} (95% CI of the "
              "aggregate ratio [{ci_low}, {ci_high}])").claim(
                  "bound", f"{plan.c.fall_bound * 100:.0f}%")
        return
    f.say("; the aggregate's 95% CI [{ci_low}, {ci_high}] allows a fall of up to {fall}, so "
          "whether the bytes per second fell is open").figure("fall", 1 - low, "percent")


def slowest_call(plan, run):
    c, s = plan.c, run.slowest
    p50 = run.call_p50
    if run.copies < 2 or not p50 or p50 <= 0 or s.he - s.hs < c.slow_factor * p50:
        return []
    call = s.he - s.hs
    transfer_p50 = median(run.transfer_ns)

    def base(f):
        return f.figure("call", call, "duration").figure("times", call / p50, "times").figure(
            "median", p50, "duration")
    if not s.timed or not transfer_p50 or transfer_p50 <= 0:
        return [base(Found("slowest-call", "untimed").say(
            "the slowest call took {call} ({times} the median {median}); without device times "
            "waiting and moving bytes cannot be told apart"))]
    transfer = s.de - s.ds
    if transfer <= c.queued_transfer * transfer_p50:
        return [base(Found("slowest-call", "queued").say(
            "queued: the slowest call took {call} ({times} the median {median}): {wait} waiting "
            "before the device started, {transfer} moving bytes (a transfer's median is "
            "{transfer_median})")).figure("wait", s.ds - s.hs, "duration").figure(
                "transfer", transfer, "duration").figure("transfer_median", transfer_p50,
                                                         "duration")]
    return [base(Found("slowest-call", "erratic").say(
        "erratic: the slowest transfer took {transfer} ({transfer_times} the median transfer "
        "{transfer_median}) in a call of {call}")).figure("transfer", transfer, "duration")
        .figure("transfer_times", transfer / transfer_p50, "times")
        .figure("transfer_median", transfer_p50, "duration")]


JAIN_TEXT = "Jain {jain} over the workers' bytes per second of their own transfer time"


def unequal_service(plan, run):
    limit = plan.c.unequal_jain
    trials = plan.trials_of(run)
    if not all(t.unequal(limit) for t in trials):
        return []
    least = sorted({t.least_served for t in trials})
    low = run.least_served
    where = "its one trial" if len(trials) == 1 else f"every trial ({len(trials)})"
    if len(least) == 1 and not run.copies_by_worker[low]:
        return [Found("unequal-service", "no-copy").say(
            "unequal service in {trials}: worker {worker} made no measured copy (" + JAIN_TEXT
            + ")").claim("trials", where).claim("worker", str(low)).figure(
                "jain", run.service_jain, "f2")]
    f = Found("unequal-service").claim("trials", where).figure("jain", run.service_jain, "f2")
    if run.service_jain_without_slowest is not None:
        f.say("unequal service in {trials}, also without the copy served slowest: " + JAIN_TEXT +
              " ({without} without it); ").figure("without", run.service_jain_without_slowest,
                                                  "f2")
    else:
        f.say("unequal service in {trials}: " + JAIN_TEXT + "; ")
    if len(least) > 1:
        f.kind = "differed"
        f.say("the worker served least differed between trials ({least})").claim(
            "least", workers_text(least))
    else:
        f.kind = "named"
        rates = run.service_rates()
        share = rates[low] / (sum(rates.values()) / len(rates))
        f.say("worker {worker} moved its bytes at {share} of the workers' mean rate").claim(
            "worker", str(low)).figure("share", share, "percent")
    return [f]


def scaling(plan, run):
    c = plan.c
    if run.threads <= 1 or plan.one_thread_reference(run) is None:
        return []
    pairs = plan.scaling_ratios(run)
    if len(pairs) < 2:
        return []                       # one trial: the table shows the ratio
    ratios = [r for r, _ in pairs]
    mid, lo, hi = median(ratios), min(ratios), max(ratios)
    what = "{ratio} for {threads} threads against one thread ('{reference}')"
    f = Found("scaling").claim("threads", str(run.threads)).claim(
        "reference", pairs[-1][1].label).figure("ratio", mid, "ratio").figure(
        "trials", len(ratios), "int").figure("lo", lo, "ratio").figure("hi", hi, "ratio")
    above = sum(1 for r in ratios if r > 1)
    below = sum(1 for r in ratios if r < 1)
    one_way = len(ratios) in (above, below)
    p = sign_test_p(above, below)
    more = above > below
    side = "above" if more else "below"
    f.figure("sign_p", p, "g3").figure("one_side", above if more else below, "int")
    if abs(mid - 1) < c.practical_ratio:
        f.kind = "none"
        f.say("scaling " + what + f": the median within {c.practical_ratio * 100:g} % of 1 ({{lo}} "
              "to {hi} in {trials} paired trials)")
    elif p < c.sign_level:
        f.kind = "more" if more else "fewer"
        f.say(f"more threads, {'more' if more else 'fewer'} bytes per second: " + what +
              f" (median of {{trials}} paired trials' ratios, {side} 1 in {{one_side}} of "
              "{trials}: {lo} to {hi}; sign test p = {sign_p})")
    elif one_way:
        f.kind = "not-significant"
        f.say("scaling " + what + f": {side} 1 in {{one_side}} of {{trials}} paired trials ({{lo}} "
              "to {hi}), not significant: sign test p = {sign_p} (all trials one way reach 5 % "
              "from 6 trials)")
    else:
        f.kind = "both-ways"
        f.say("scaling " + what + ": the trials' ratios go both ways ({lo} to {hi}): no "
              "consistent difference in {trials} trials")
    return [f]


def shared_machine(plan, run):
    c, h = plan.c, run.host_activity
    if not machine_shared(plan, run):
        return []
    cpus = h.get("cpus", 0)
    resolution = 2 * cpus * c.tick_seconds / (h.get("window_ns", 0) / 1e9)
    span = ("the copies ran" if h.get("span") == "copies"
            else "the run's workers ran (buffers prepared and copies made)")
    f = Found("shared-machine").say(
        "shared machine: other processes kept {others} of {cpus} CPUs busy while {span} (xferlab "
        "{own}; +-{resolution} CPUs at /proc/stat's 10 ms ticks over {window}), the hypervisor "
        "took {steal}% of CPU time (steal)").figure("others", h.get("others_cpus", 0), "f1").claim(
        "cpus", str(cpus)).claim("span", span).figure("own", h.get("own_cpus", 0), "f1").figure(
        "resolution", resolution, "f2").figure("window", h.get("window_ns", 0), "duration").figure(
        "steal", h.get("steal_fraction", 0) * 100, "f1")
    if run.launcher in ("mpi",):
        f.say("; the other MPI ranks on this host count as other processes")
    f.say(": the copies may have waited for CPUs or memory bandwidth they shared")
    return [f]


def far_node(plan, run):
    """Per device whose nearest node the results name: each other node most of some sampled
    copies' host pages were on (catalogue: far-node)."""
    from audit_full_lines import counted_for_nodes, nearest_nodes
    nearest = nearest_nodes(plan.results)
    watched = any(r.copy_kind for r in run.records)
    by_device = {}
    for r in run.records:
        if counted_for_nodes(r) and r.host_node >= 0:
            by_device.setdefault(r.device, {}).setdefault(r.host_node, 0)
            by_device[r.device][r.host_node] += 1
    out = []
    for d, nodes in sorted(by_device.items()):
        if d not in nearest:
            continue
        for node, copies in sorted(nodes.items()):
            if node == nearest[d]:
                continue
            out.append(Found("far-node").say(
                "device {device}: the host pages of {far} of the {sampled} sampled {what} were "
                "mostly on NUMA node {node}, not on the device's nearest node {nearest}").claim(
                    "device", str(d)).figure("far", copies, "int").figure(
                    "sampled", sum(nodes.values()), "int").claim(
                    "what", "pageable copies" if watched else "copies").claim(
                    "node", str(node)).claim("nearest", str(nearest[d])))
    return out


# A watched copy's kind (CUPTI's, by name in the files) -> the direction a reference run names.
WATCHED_DIRECTION = {"HtoD": "h2d", "HtoA": "h2d", "DtoH": "d2h", "AtoH": "d2h"}


def watched_references(plan, run):
    """The reference runs xferlab timed on one device after the watched program `run` ended, as
    report/analysis/watched.cpp selects them: the page-locked copy (label "reference pinned ...")
    or xferlab.copy ("xferlab.copy ...", --calibrate), ok, with an aggregate. Each as (run,
    calibrate, device, direction, its transfer settings, the program's device-timed copies of
    that device and direction)."""
    out = []
    for ref in plan.runs:
        calibrate = ref.label.startswith("xferlab.copy ")
        transfer = ref.settings.get("transfer") or {}
        devices = transfer.get("devices") or []
        if (ref is run or not (ref.label.startswith("reference pinned ") or calibrate)
                or ref.status != "ok" or len(devices) != 1 or ref.aggregate <= 0):
            continue
        direction = transfer.get("direction", "")
        mine = [r for r in run.records if r.device == devices[0] and r.timed and r.de > r.ds
                and WATCHED_DIRECTION.get(r.copy_kind) == direction]
        out.append((ref, calibrate, devices[0], direction, transfer, mine))
    return out


def watched_reference(plan, run):
    """A watched program's device-timed copies beside each reference run xferlab timed on one
    device after the program ended (catalogue: watched-reference)."""
    from audit_full_lines import size_text
    if run.launcher != "watched":
        return []
    out = []
    for ref, calibrate, device, direction, transfer, mine in watched_references(plan, run):
        if not mine:
            continue
        size = size_text(transfer.get("bytes", 0))
        threads = (ref.settings.get("threads") or {}).get("count", ref.threads)
        what = (f"xferlab.copy of {size} ({threads} thread{'' if threads == 1 else 's'})"
                if calibrate else f"a page-locked copy of {size}")
        rate = percentile([r.bytes * 1e9 / (r.de - r.ds) for r in mine], 0.5)
        out.append(Found("watched-reference").say(
            "device {device} {direction}: the program's copies moved {rate} per copy (p50, "
            "device-timed); xferlab timed {what} here after it ended at {reference} ({run}): how "
            "far apart is not tested (one trial)").claim("device", str(device)).claim(
                "direction", direction).figure("rate", rate, "gbps").claim(
                "what", what).figure("reference", ref.aggregate, "gbps").runs("run", [ref.index]))
    return out


PER_RUN = [calls_one_at_a_time, calls_short, device_one_at_a_time, waiting_not_moving,
           calls_wait, idle_window, hand_off, returned_sooner_kept, gil_released,
           per_context_in_run, same_aggregate_slower_copies, slowest_call, unequal_service,
           scaling, shared_machine, far_node, watched_reference]

# The per-run rules the default report does not print in its Why block: a run's detail (--full
# only) and the hand-off, whose figures are the Hand-off table's rows; the summary's rules it
# leaves to --full (docs/reading-reports.md, the catalogue's "printed" column).
FULL_ONLY = {"slowest-call", "hand-off"}
SUMMARY_FULL_ONLY = {"gap-vs-handoff", "warmups-in-window"}

# The rules whose findings --brief keeps (docs: "the shared machine finding (it changes how
# every figure of its run is read)").
BRIEF_RULES = {"shared-machine"}


# ------------------------------------------------------------------------------------------
# The summary

def derive_summary(plan, run_findings):
    """The summary's findings; `run_findings`: {run index: [Found]} of derive_run."""
    out = []
    for rule in SUMMARY:
        out.extend(rule(plan, run_findings))
    return out


def said(rule, kind, head, text):
    return Found(rule, kind).say(head + "{text}").claim("text", text)


def bookkeeping(plan, run_findings):
    results, out = plan.results, []
    notes = (results.get("scenario") or {}).get("notes")
    for n in notes if isinstance(notes, list) else []:
        if isinstance(n, str):
            out.append(said("bookkeeping", "input", "input: ", n))
    if results.get("interrupted"):
        out.append(Found("bookkeeping", "interrupted").say("interrupted: the results are partial"))
    out.extend(incomplete(results))
    for n in results.get("notes") or []:
        out.append(said("bookkeeping", "note", "", n))
    sizing = results.get("sizing")
    if isinstance(sizing, dict) and sizing.get("reduced"):
        out.append(said("bookkeeping", "fit", "sized for this machine (--fit): ",
                        sizing.get("note", "")))
    out.extend(baselines(plan))
    out.extend(extremes(plan))
    return out


def incomplete(results):
    if results.get("complete", True) or results.get("interrupted"):
        return []
    here = len(results.get("runs", []))
    f = Found("bookkeeping", "incomplete").figure("here", here, "int")
    planned = results.get("planned_runs", 0)
    if planned > 0:
        return [f.say("incomplete: {here} of {planned} planned runs are here; the plan did not "
                      "finish (xferlab was still running, or ended abruptly)").figure(
                          "planned", planned, "int")]
    return [f.say("incomplete: {here} runs are here; whether the plan finished is not recorded "
                  "(a journal holds completed runs only)")]


def baselines(plan):
    base = plan.baseline_run
    if base is None:
        return [Found("bookkeeping", "baseline").say(
            "no run finished ok with measured copies: nothing to compare")]
    labels = [g.label for g in plan.groups if g.is_baseline]
    if len(labels) > 1:
        return [Found("bookkeeping", "baseline").say("baselines, one per sweep point: {labels}")
                .claim("labels", ", ".join(f"'{label}'" for label in labels))]
    if plan.has_trials:             # every trial of the label is its trial's baseline
        return [Found("bookkeeping", "baseline").say("baseline: '{label}'").claim("label",
                                                                                  base.label)]
    return [Found("bookkeeping", "baseline").say("baseline: {run} ({label})").runs(
        "run", [base.index]).claim("label", base.label)]


def extremes(plan):
    if plan.has_trials:                 # the verdicts table gives each label's median
        return []
    measured = [r for r in plan.runs if r.aggregate > 0]
    if len(measured) < 2:
        return []
    hi = max(measured, key=lambda r: r.aggregate)           # the first of equals
    lo = min(measured, key=lambda r: r.aggregate)
    if hi is lo:
        return []
    return [Found("bookkeeping", "extremes").say(
        "highest aggregate: {high} ({high_label}) {high_rate}; lowest: {low} ({low_label}) "
        "{low_rate} ({apart} apart)").runs("high", [hi.index]).claim("high_label", hi.label)
        .figure("high_rate", hi.aggregate, "gbps").runs("low", [lo.index])
        .claim("low_label", lo.label).figure("low_rate", lo.aggregate, "gbps")
        .figure("apart", hi.aggregate / lo.aggregate, "ratio")]


VERDICT_LINES = [
    ("faster", "faster than the baseline of its sweep point: "),
    ("slower", "slower than the baseline of its sweep point: "),
    ("negligible", "a difference from the baseline of its sweep point under {pct} (negligible): "),
    ("no difference found", "no difference found from the baseline of its sweep point: "),
    ("not testable", "not testable with these trial counts (the test cannot reach p < {level}; "
                     "run with --trials {trials}): "),
]


def verdicts(plan, run_findings):
    c, out = plan.c, []
    if max((len(g.aggregates) for g in plan.groups), default=0) == 1:
        out.append(Found("verdicts", "one-trial").say(
            "one trial per run: drift between runs is unknown, so no run is called faster or "
            f"slower; run with --trials {c.suggested_trials} (or scenario.trials) to judge"))
    for finding, head in VERDICT_LINES:
        if plan.has_trials:             # the verdicts table gives them
            break
        groups = [(g.label, g.verdict.ratio) for g in plan.groups
                  if g.verdict and g.verdict.finding == finding]
        if not groups:
            continue
        head = head.replace("{pct}", f"{c.negligible_ratio * 100:g} %").replace(
            "{level}", f"{c.verdict_level:g}").replace("{trials}", str(c.suggested_trials))
        out.append(Found("verdicts", finding).say(head + "{groups}").ratios("groups", groups))
    return out


def noise_lists(plan, run_findings):
    inside, outside, understates = [], [], []
    for r in plan.runs:
        cmp = plan.comparison(r)
        if cmp is None or not cmp.judged:
            continue
        (inside if cmp.inside else outside).append(r.index)
        if any(f.id == "same-aggregate-slower-copies/trials" for f in run_findings[r.index]):
            understates.append(r.index)
    out = []
    if plan.has_trials:             # the verdicts judge the runs; each label's Why line says it
        inside, outside, understates = [], [], []
    if inside:
        out.append(Found("noise-lists", "inside").say(
            "aggregate inside the noise of its own run and the baseline's: {runs}")
            .runs("runs", inside))
    if outside:
        out.append(Found("noise-lists", "outside").say(
            "aggregate outside the noise of its own run and the baseline's: {runs} (drift "
            "between runs not included)").runs("runs", outside))
    if understates:
        out.append(Found("noise-lists", "understates").say(
            "per-copy bandwidth understates {runs}: the trials found no difference in the "
            "aggregate, the copies were slower").claim("runs", runs_by_label(plan, understates)))
    return out


def gap_vs_handoff(plan, run_findings):
    labels = {}                     # one part per label, its trials together
    for r in plan.runs:
        if r.gaps and r.serialized_rate is not None and r.calls_hold_transfers:
            labels.setdefault(r.label, []).append(r)
    if len(labels) < 2:
        return []
    f = Found("gap-vs-handoff").say("serialized devices, gap after a copy vs hand-off: ")
    for i, runs in enumerate(labels.values()):
        f.say(("; " if i else "") + f"{{launcher{i}}} workers of {{run{i}}}: gap p50 ").claim(
            f"run{i}", runs_by_label(plan, [r.index for r in runs])).claim(
            f"launcher{i}", runs[0].launcher)
        say_range(f, f"gap{i}", [median(r.gaps) for r in runs], "duration")
        f.say(", hand-off rate ")
        say_range(f, f"rate{i}", [r.serialized_rate for r in runs], "f2")
    return [f]


def say_range(f, name, values, kind):
    """One figure where its lowest and highest print alike, else "lo to hi"."""
    lo, hi = min(values), max(values)
    if render_number(lo, kind) == render_number(hi, kind):
        f.say("{" + name + "}").figure(name, lo, kind)
        return
    f.say("{" + name + "_lo} to {" + name + "_hi}").figure(name + "_lo", lo, kind).figure(
        name + "_hi", hi, kind)


def gap_side(runs):
    """(rates, gaps) of one side of a gap-decides pair; None where a run has no serialized
    device or no gap."""
    if any(r.serialized_rate is None or not r.gaps for r in runs):
        return None
    return [r.serialized_rate for r in runs], [median(r.gaps) for r in runs]


def gap_decides(plan, run_findings):
    c, out = plan.c, []
    for trial_pairs in plan.switch_pairs("threads.between").values():
        a_runs = [a for a, _ in trial_pairs]
        b_runs = [b for _, b in trial_pairs]
        a, b = gap_side(a_runs), gap_side(b_runs)
        if a is None or b is None:
            continue
        for keep_runs, keep, hand_runs, hand in ((a_runs, a, b_runs, b), (b_runs, b, a_runs, a)):
            if all(keep[0][t] <= c.switch_low_rate and hand[0][t] >= c.switch_high_rate
                   and keep[1][t] * c.switch_gap_apart <= hand[1][t]
                   for t in range(len(keep_runs))):
                out.append(say_evidence(plan, keep_runs + hand_runs, len(keep_runs),
                                        gap_decides_finding(plan, keep_runs, keep, hand_runs, hand)))
                break
    return out


def gap_decides_finding(plan, keep_runs, keep, hand_runs, hand):
    f = Found("gap-decides")
    for name, runs, (rates, gaps), did in (("keep", keep_runs, keep, "kept the device"),
                                           ("hand", hand_runs, hand, "handed it over")):
        if name == "hand":
            f.say(" and ")
        f.say(f"{{{name}}} (threads.between = {{{name}_between}}, gap p50 {{{name}_gap}}) {did} "
              f"(hand-off rate {{{name}_rate}})").claim(
                  name, runs_by_label(plan, [r.index for r in runs])).claim(
                  f"{name}_between", runs[0].between).figure(
                  f"{name}_gap", median(gaps), "duration").figure(f"{name}_rate", median(rates),
                                                                  "f2")
    return f.say(": with nothing else changed, the gap after a copy decides who gets the device "
                 "next")


def context_switch(plan, run_findings):
    out = []
    for trial_pairs in plan.switch_pairs("transfer.context").values():
        primary, own = [], []
        for a, b in trial_pairs:
            if a.context_setting == "per-worker":
                a, b = b, a
            primary.append(a)
            own.append(b)
        if all(a.threads >= 2 and a.devices and a.device_peak_in_flight == 1
               and b.device_peak_in_flight >= 2 for a, b in zip(primary, own)):
            out.append(say_evidence(plan, primary + own, len(primary), Found(
                "context-switch").say(
                "with transfer.context = primary the threads never overlapped on a device "
                "({primary}), with per-worker contexts they did ({own}): the serialization is per "
                "context").claim("primary", runs_by_label(plan, [r.index for r in primary]))
                .claim("own", runs_by_label(plan, [r.index for r in own]))))
    return out


def warmups_in_window(plan, run_findings):
    listed = [r for r in plan.runs if r.warmups_in_window > 0]
    if not listed:
        return []
    total = sum(r.warmups_in_window for r in listed)
    f = Found("warmups-in-window").say(
        "{count} warm-up cop" + ("y" if total == 1 else "ies") + " overlapped the measurement "
        "window ({runs}): the aggregate counts the bytes they moved inside it").figure(
            "count", total, "int").claim("runs", runs_by_label(plan, [r.index for r in listed]))
    turns = [r.index for r in listed if r.took_turns]
    if turns and turns == [r.index for r in listed]:
        f.say("; every device of these runs had one transfer at a time: the workers took turns, "
              "so one worker's warm-up ran inside another's measured copies")
    elif turns:
        f.say("; on {turns}, whose devices never had two transfers at once, the workers took "
              "turns, so one worker's warm-up ran inside another's measured copies").claim(
                  "turns", runs_by_label(plan, turns))
    return [f]


def error_line(error):
    """The line of an error the summary gives: a traceback's last line, else the first."""
    lines = [line for line in error.split("\n") if line]
    if not lines:
        return ""
    return lines[-1] if any(line.startswith("Traceback") for line in lines) else lines[0]


def failed_runs(plan, run_findings):
    out = []
    for r in plan.runs:
        if r.status == "ok":
            continue
        f = Found("failed-runs").say("{run} ({label}) {status}").runs("run", [r.index]).claim(
            "label", r.label).claim("status", r.status)
        if r.errors:
            f.say(": {error}").claim("error", error_line(r.errors[0]))
        out.append(f)
    return out


# The Python launchers and what their threads share of the GIL (catalogue: interpreter-gap).
INTERPRETER_GIL = {"python": "one GIL for the process", "python-ft": "no GIL",
                   "python-subinterp": "a GIL per worker"}


def interpreter_gap(plan, run_findings):
    """Runs differing in the launcher alone, both Python launchers: in every trial (2+) one side's
    gap p50 at least interpreter_gap_apart shorter, every trial of it below every trial of the
    other."""
    c, out = plan.c, []
    for trial_pairs in plan.switch_pairs("launcher").values():
        a_runs = [a for a, _ in trial_pairs]
        b_runs = [b for _, b in trial_pairs]
        if (len(trial_pairs) < 2 or a_runs[0].launcher not in INTERPRETER_GIL
                or b_runs[0].launcher not in INTERPRETER_GIL
                or any(not r.gaps for r in a_runs + b_runs)):
            continue
        ga = [median(r.gaps) for r in a_runs]
        gb = [median(r.gaps) for r in b_runs]
        for s_runs, sg, l_runs, lg in ((a_runs, ga, b_runs, gb), (b_runs, gb, a_runs, ga)):
            if max(sg) < min(lg) and all(x * c.interpreter_gap_apart <= y
                                          for x, y in zip(sg, lg)):
                out.append(interpreter_gap_finding(plan, s_runs, sg, l_runs, lg))
                break
    return out


def interpreter_gap_finding(plan, s_runs, sg, l_runs, lg):
    c = plan.c
    f = Found("interpreter-gap").say(
        "{sooner_launcher} workers ({sooner_gil}; {sooner}) called again after a copy in p50 "
        "{sooner_gap} against {later_gap} for {later_launcher} workers ({later_gil}; {later}), at "
        "least "
        f"{c.interpreter_gap_apart:.1f}x sooner in every trial ({{trials}}); the runs differ in "
        "the launcher alone, so the interpreter the threads ran in moved the gap")
    f.claim("sooner", runs_by_label(plan, [r.index for r in s_runs])).claim(
        "sooner_launcher", s_runs[0].launcher)
    f.claim("sooner_gil", INTERPRETER_GIL[s_runs[0].launcher]).figure("sooner_gap", median(sg),
                                                                      "duration")
    f.figure("later_gap", median(lg), "duration").claim(
        "later", runs_by_label(plan, [r.index for r in l_runs]))
    f.claim("later_launcher", l_runs[0].launcher).claim("later_gil",
                                                        INTERPRETER_GIL[l_runs[0].launcher])
    f.figure("trials", len(s_runs), "int")
    kept = [r.serialized_rate for r in s_runs]
    handed = [r.serialized_rate for r in l_runs]
    if all(k is not None and h is not None and k <= c.switch_low_rate and h >= c.switch_high_rate
           for k, h in zip(kept, handed)):
        f.say("; the device changed hands at rate {sooner_rate} against {later_rate}")
        f.figure("sooner_rate", median(kept), "f2").figure("later_rate", median(handed), "f2")
    return say_evidence(plan, s_runs + l_runs, len(s_runs), f)


def work_us(run):
    value = (run.settings.get("params") or {}).get("work_us", 0)
    return value if isinstance(value, (int, float)) else 0


def work_pairs(plan):
    """Per Python launcher: (launcher, W, runs without work, runs with work W) for labels whose
    runs differ in params.work_us alone (0 against W > 0), by trial."""
    out = []
    for trial_pairs in plan.switch_pairs("params").values():
        a, b = trial_pairs[0]
        pa = {k: v for k, v in (a.settings.get("params") or {}).items() if k != "work_us"}
        pb = {k: v for k, v in (b.settings.get("params") or {}).items() if k != "work_us"}
        if a.launcher not in INTERPRETER_GIL or pa != pb or 0 not in (work_us(a), work_us(b)) \
                or work_us(a) == work_us(b):
            continue
        idle_first = work_us(a) == 0
        idle = [x if idle_first else y for x, y in trial_pairs]
        working = [y if idle_first else x for x, y in trial_pairs]
        out.append((a.launcher, work_us(working[0]), idle, working))
    return out


def added_gaps(idle, working):
    if any(not r.gaps for r in idle + working):
        return None
    return [median(w.gaps) - median(i.gaps) for i, w in zip(idle, working)]


def gil_serializes_work(plan, run_findings):
    c, out = plan.c, []
    pairs = work_pairs(plan)
    for launcher, work, idle, working in pairs:
        if launcher != "python":
            continue
        for other, other_work, o_idle, o_working in pairs:
            if other == "python" or len(o_idle) < 2 or len(o_idle) != len(idle) or not all(
                    plan.differ_only_in(x, y, "launcher")
                    for x, y in zip(idle + working, o_idle + o_working)):
                continue
            d1, d2 = added_gaps(idle, working), added_gaps(o_idle, o_working)
            if d1 is None or d2 is None or not all(
                    x > 0 and x >= c.work_turns * max(y, 0) for x, y in zip(d1, d2)):
                continue
            out.append(say_evidence(plan, idle + working + o_idle + o_working, len(d1), Found(
                "gil-serializes-work").say(
                "Python work between copies (params.work_us = {work}) lengthened the gap after a "
                "copy by {shared_added} under python (one GIL for the process; {shared_runs}) and "
                "by {own_added} under {own_launcher} ({own_gil}; {own_runs}), medians of {trials} "
                f"trials, at least {c.work_turns:.1f}x more under one GIL in every trial: under "
                "one GIL the workers' Python work took turns")
                .claim("work", f"{work:g}").figure("shared_added", median(d1), "duration")
                .claim("shared_runs", runs_by_label(plan, [r.index for r in working]))
                .figure("own_added", median(d2), "duration").claim("own_launcher", other)
                .claim("own_gil", INTERPRETER_GIL[other])
                .claim("own_runs", runs_by_label(plan, [r.index for r in o_working]))
                .figure("trials", len(d1), "int")))
    return out


SUMMARY = [bookkeeping, verdicts, noise_lists, gap_vs_handoff, gap_decides, context_switch,
           interpreter_gap, gil_serializes_work, warmups_in_window, failed_runs]
