// Per-run rules about calls in flight: whether copies overlapped on the host and on each
// device, and where calls waited (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <functional>

#include "report/explain_rules_internal.hpp"
#include "report/switches.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// Calls far shorter than the spread of the workers' first calls had little chance to overlap.
bool short_calls(const RunAnalysis& a) { return a.per_copy_ns.p50 < a.start_spread_ns / 2; }

// For every trial of `in`'s run: the run of that trial and a run of the same trial that differs
// from it in `key` alone, for which `holds(self, other)`. The other run of `in`'s own trial
// where it holds is `example`. False when a trial has no such run.
template <class Field>
bool every_trial(const RuleInput& in, Field key, const std::function<bool(size_t, size_t)>& holds,
                 size_t& example) {
    const auto trials = trials_of(in.results, in.run);
    for (size_t self : trials) {
        bool found = false;
        for (size_t other : switched_runs(in.results, self, key)) {
            if (!holds(self, other)) continue;
            found = true;
            if (self == in.run) example = other;
            break;
        }
        if (!found) return false;
    }
    return !trials.empty();
}

// The cause clause of calls-one-at-a-time for a run that held the GIL across its calls.
std::string gil_cause(const RuleInput& in) {
    const auto& runs = in.analysis.runs;
    size_t other = 0;
    const bool released_overlaps = every_trial(
        in, switch_gil,
        [&](size_t self, size_t o) {
            return gil_of(in.results.runs[o]) == GilPolicy::release && runs[self].host_peak_in_flight == 1 &&
                   runs[o].host_peak_in_flight >= 2;
        },
        other);
    if (released_overlaps)
        return fmt::format(
            ": the GIL held across the call serialized them: run {}, the same with gil = "
            "release, overlapped (host-side peak {})",
            in.results.runs[other].index, runs[other].host_peak_in_flight);
    for (size_t o : switched_runs(in.results, in.run, switch_gil))
        if (gil_of(in.results.runs[o]) == GilPolicy::release)
            return fmt::format(
                "; run {}, the same with gil = release, did not overlap in every trial either, "
                "so the held GIL is not shown to be what serialized them",
                in.results.runs[o].index);
    return "; gil = hold, and no run of this plan differs from it in gil alone, so no cause is "
           "named";
}

}  // namespace

void no_copies(const RuleInput& in, std::vector<std::string>& out) {
    if (in.a().copies == 0 && in.r().status != RunStatus::skipped)
        out.push_back("no measured copies");
}

void calls_one_at_a_time(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    const size_t active = workers_with(a, 2);
    if (active < 2 || a.host_peak_in_flight != 1) return;
    const bool held = gil_of(in.r()) == GilPolicy::hold;
    if (!held && short_calls(a)) return;  // calls-short says it
    std::string line = fmt::format(
        "calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
        "included) with {} workers",
        active);
    if (held) line += gil_cause(in);
    out.push_back(line);
}

void calls_short(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    // With gil = hold the held GIL itself spreads the workers' first calls: not "short".
    if (workers_with(a, 2) < 2 || a.host_peak_in_flight != 1 || gil_of(in.r()) == GilPolicy::hold ||
        !short_calls(a))
        return;
    out.push_back(fmt::format(
        "calls never overlapped, but they had little chance to: a call took p50 {} while the "
        "workers' first calls spread over {}",
        fmtx::duration(a.per_copy_ns.p50), fmtx::duration(a.start_spread_ns)));
}

void device_one_at_a_time(const RuleInput& in, std::vector<std::string>& out) {
    for (const DeviceStats& d : in.a().devices) {
        if (d.workers < 2 || d.copies < 2 || d.peak_in_flight != 1) continue;
        out.push_back(fmt::format(
            "copies never overlapped on device {}: device-side peak 1 with {} workers (warm-ups "
            "included)",
            d.device, d.workers));
    }
}

namespace {

// On device `d`: calls overlapped on the host while its transfers went one at a time, and the
// calls measurably waited before the device started.
bool waits_on_device(const DeviceStats& d) {
    return d.workers >= 2 && d.host_concurrency >= kOverlapHostMin &&
           d.host_concurrency >= kOverlapFactor * d.concurrency && d.peak_in_flight == 1 &&
           d.call_p50_ns > 0 && d.wait_p50_ns >= kWaitFraction * d.call_p50_ns;
}

}  // namespace

void waiting_not_moving(const RuleInput& in, std::vector<std::string>& out) {
    for (const DeviceStats& d : in.a().devices) {
        if (!waits_on_device(d)) continue;
        out.push_back(fmt::format(
            "on device {} calls overlapped (host-side concurrency {:.1f}) but transfers did not "
            "(device-side {:.1f}, peak 1): calls waited {} (p50, {} of a call) before the device "
            "started, so per-copy bandwidth there measures waiting",
            d.device, d.host_concurrency, d.concurrency, fmtx::duration(d.wait_p50_ns),
            fmtx::percent(d.wait_p50_ns / d.call_p50_ns)));
    }
}

void calls_wait(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    if (!a.pre_device_ns || a.per_copy_ns.p50 <= 0 ||
        a.pre_device_ns->p50 < kWaitFraction * a.per_copy_ns.p50)
        return;
    for (const DeviceStats& d : a.devices)
        if (waits_on_device(d)) return;  // waiting-not-moving said it, device by device
    out.push_back(fmt::format(
        "calls wait {} (p50) before the device starts moving bytes: {} of a call's p50 {}",
        fmtx::duration(a.pre_device_ns->p50),
        fmtx::percent(a.pre_device_ns->p50 / a.per_copy_ns.p50),
        fmtx::duration(a.per_copy_ns.p50)));
}

}  // namespace xfer::explain
