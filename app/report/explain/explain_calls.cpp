// Per-run rules about calls in flight: whether copies overlapped on the host and on each
// device, where calls waited, and how much of the window no call was in flight (catalogue:
// docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <functional>

#include "report/explain/explain_rules_internal.hpp"
#include "report/analysis/switches.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// Calls far shorter than the spread of the workers' first calls had little chance to overlap.
bool short_calls(const RunAnalysis& a) { return a.per_copy_ns.p50 < a.start_spread_ns / 2; }

// For every trial of `in`'s run: the run of that trial and a run of the same trial that differs
// from it in `key` alone, for which `holds(self, other)`. The other runs where it holds are
// `partners` (one per trial). False when a trial has no such run.
template <class Field>
bool every_trial(const RuleInput& in, Field key, const std::function<bool(size_t, size_t)>& holds,
                 std::vector<size_t>& partners) {
    const auto trials = trials_of(in.results, in.run);
    for (size_t self : trials) {
        bool found = false;
        for (size_t other : switched_runs(in.results, self, key)) {
            if (!holds(self, other)) continue;
            found = true;
            partners.push_back(other);
            break;
        }
        if (!found) return false;
    }
    return !trials.empty();
}

// The cause clause of calls-one-at-a-time for a run that held the GIL across its calls.
void gil_cause(const RuleInput& in, Finding& f) {
    const auto& runs = in.analysis.runs;
    std::vector<size_t> partners;
    const bool released_overlaps = every_trial(
        in, switch_gil,
        [&](size_t self, size_t o) {
            return gil_of(in.results.runs[o]) == GilPolicy::release &&
                   runs[self].host_peak_in_flight == 1 && runs[o].host_peak_in_flight >= 2;
        },
        partners);
    if (released_overlaps) {
        // The partner of this run's own trial is the one it names.
        for (size_t p : partners)
            if (in.results.runs[p].position.trial == in.r().position.trial) {
                name_run(f.say(": the GIL held across the call serialized them: {partner}, the "
                               "same with gil = release, overlapped (host-side peak {peak})"),
                         "partner", in.results.runs[p])
                    .figure("peak", runs[p].host_peak_in_flight,
                            std::to_string(runs[p].host_peak_in_flight));
                std::vector<size_t> rests_on = trials_of(in.results, in.run);
                rests_on.insert(rests_on.end(), partners.begin(), partners.end());
                say_evidence(in.results, rests_on, partners.size(), f);
                return;
            }
    }
    for (size_t o : switched_runs(in.results, in.run, switch_gil))
        if (gil_of(in.results.runs[o]) == GilPolicy::release) {
            name_run(f.say("; {partner}, the same with gil = release, did not overlap in every "
                           "trial either, so the held GIL is not shown to be what serialized "
                           "them"),
                     "partner", in.results.runs[o]);
            return;
        }
    f.say("; gil = hold, and no run of this plan differs from it in gil alone, so no cause is "
          "named");
}

// On device `d`: calls overlapped on the host while its transfers went one at a time, and the
// calls measurably waited before the device started, mostly while another transfer ran there.
bool waits_on_device(const DeviceStats& d) {
    return d.workers >= 2 && d.host_concurrency >= kOverlapHostMin &&
           d.host_concurrency >= kOverlapFactor * d.concurrency && d.peak_in_flight == 1 &&
           d.call_p50_ns > 0 && d.wait_p50_ns >= kWaitFraction * d.call_p50_ns &&
           d.wait_busy_fraction >= kWaitBusy;
}

std::string device_text(int device) { return std::to_string(device); }

}  // namespace

void no_copies(const RuleInput& in, std::vector<Finding>& out) {
    if (in.a().copies == 0 && in.r().status != RunStatus::skipped)
        out.push_back(Finding{}.say("no measured copies"));
}

void calls_one_at_a_time(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    const size_t active = workers_with(a, 2);
    if (active < 2 || a.host_peak_in_flight != 1) return;
    const bool held = gil_of(in.r()) == GilPolicy::hold;
    if (!held && short_calls(a)) return;  // calls-short says it
    Finding f;
    f.say("calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
          "included) with {workers} workers")
        .claim("workers", std::to_string(active));
    if (held) gil_cause(in, f);
    out.push_back(std::move(f));
}

void calls_short(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    // With gil = hold the held GIL itself spreads the workers' first calls: not "short".
    if (workers_with(a, 2) < 2 || a.host_peak_in_flight != 1 ||
        gil_of(in.r()) == GilPolicy::hold || !short_calls(a) || !a.calls_hold_transfers)
        return;
    out.push_back(Finding{}
                      .say("calls never overlapped, but they had little chance to: a call took "
                           "p50 {call} while the workers' first calls spread over {spread}")
                      .figure("call", a.per_copy_ns.p50, fmtx::duration(a.per_copy_ns.p50))
                      .figure("spread", a.start_spread_ns, fmtx::duration(a.start_spread_ns)));
}

void device_one_at_a_time(const RuleInput& in, std::vector<Finding>& out) {
    for (const DeviceStats& d : in.a().devices) {
        if (d.workers < 2 || d.copies < 2 || d.peak_in_flight != 1) continue;
        out.push_back(Finding{}
                          .say("copies never overlapped on device {device}: device-side peak 1 "
                               "with {workers} workers (warm-ups included)")
                          .claim("device", device_text(d.device))
                          .claim("workers", std::to_string(d.workers)));
    }
}

void waiting_not_moving(const RuleInput& in, std::vector<Finding>& out) {
    if (!in.a().calls_hold_transfers) return;  // a call that returns first waits for nothing
    for (const DeviceStats& d : in.a().devices) {
        if (!waits_on_device(d)) continue;
        out.push_back(
            Finding{}
                .say("on device {device} calls overlapped (host-side concurrency {host}) but "
                     "transfers did not (device-side {dev}, peak 1): calls waited {wait} (p50, "
                     "{share} of a call) before the device started, another transfer on it for "
                     "{busy} of that wait, so per-copy bandwidth there measures waiting")
                .claim("device", device_text(d.device))
                .figure("host", d.host_concurrency, fmt::format("{:.1f}", d.host_concurrency))
                .figure("dev", d.concurrency, fmt::format("{:.1f}", d.concurrency))
                .figure("wait", d.wait_p50_ns, fmtx::duration(d.wait_p50_ns))
                .figure("share", d.wait_p50_ns / d.call_p50_ns,
                        fmtx::percent(d.wait_p50_ns / d.call_p50_ns))
                .figure("busy", d.wait_busy_fraction, fmtx::percent(d.wait_busy_fraction)));
    }
}

void calls_wait(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    // The wait against the calls it belongs to: the device-timed ones.
    if (!a.calls_hold_transfers || !a.pre_device_ns || !a.timed_call_p50_ns ||
        *a.timed_call_p50_ns <= 0 || a.pre_device_ns->p50 < kWaitFraction * *a.timed_call_p50_ns)
        return;
    for (const DeviceStats& d : a.devices)
        if (waits_on_device(d)) return;  // waiting-not-moving said it, device by device
    const double call = *a.timed_call_p50_ns;
    const double share = a.pre_device_ns->p50 / call;
    out.push_back(Finding{}
                      .say("calls wait {wait} (p50) before the device starts moving bytes: "
                           "{share} of a call's p50 {call}")
                      .figure("wait", a.pre_device_ns->p50, fmtx::duration(a.pre_device_ns->p50))
                      .figure("share", share, fmtx::percent(share))
                      .figure("call", call, fmtx::duration(call)));
}

void idle_window(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    // With calls that return before their transfers, bytes moved while no call was in flight.
    if (a.copies < 2 || a.idle_fraction < kIdleShare || !a.calls_hold_transfers) return;
    out.push_back(Finding{}
                      .say("no copy call was in flight for {idle} of the measurement window "
                           "(the workers' first calls spread over {spread}): the aggregate "
                           "divides by time in which nothing moved")
                      .figure("idle", a.idle_fraction, fmtx::percent(a.idle_fraction))
                      .figure("spread", a.start_spread_ns, fmtx::duration(a.start_spread_ns)));
}

}  // namespace xfer::explain
