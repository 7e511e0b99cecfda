#include "report/explain_mechanism.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "results/vocabulary.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

// A worker whose runs on the device average at least this many copies kept the device; below
// it handed the device over after (about) every copy.
constexpr double kKeepRunLength = 2.0;
// Hand-off rates at or above this count as "hands the device over" when runs are compared.
constexpr double kHandoffHigh = 0.5;

std::string setting(const RunResult& run, const char* table, const char* key) {
    const auto& s = run.settings;
    if (!s.is_object() || !s.contains(table) || !s[table].is_object()) return "";
    const auto it = s[table].find(key);
    return it != s[table].end() && it->is_string() ? it->get<std::string>() : "";
}

std::string top_setting(const RunResult& run, const char* key) {
    const auto& s = run.settings;
    if (!s.is_object()) return "";
    const auto it = s.find(key);
    return it != s.end() && it->is_string() ? it->get<std::string>() : "";
}

bool per_worker_context(const RunResult& run) {
    return setting(run, "transfer", "context") == "per-worker";
}

// Threads of one process in the device's primary context: neither their own context nor
// workers in processes of their own.
bool shares_primary_context(const RunResult& run) {
    const LauncherDescriptor* d = find_launcher(run.launcher);
    return !per_worker_context(run) && !(d && d->workers_elsewhere);
}

const DeviceStats* device_stats(const RunAnalysis& a, int device) {
    for (const DeviceStats& d : a.devices)
        if (d.device == device) return &d;
    return nullptr;
}

bool serialized(const RunAnalysis& a, const HandoffStats& h) {
    const DeviceStats* d = device_stats(a, h.device);
    return h.clock == "device" && h.workers >= 2 && d && d->peak == 1;
}

std::string worker_list(const std::vector<int>& w) {
    return fmt::format("worker{} {}", w.size() == 1 ? "" : "s", fmt::join(w, ", "));
}

// "p50 3.1 us" of the workers' gaps in `ws`, pooled by their medians.
std::string gap_of(const RunAnalysis& a, const std::vector<int>& ws) {
    std::vector<double> p50;
    for (int w : ws)
        if (a.workers[size_t(w)].gap_ns) p50.push_back(a.workers[size_t(w)].gap_ns->p50);
    if (p50.empty()) return "no gap measured";
    const Distribution d = distribution(p50);
    return fmt::format("gap p50 {}", fmtx::duration(d.p50));
}

std::vector<const RunAnalysis*> serialized_runs(const Analysis& analysis) {
    std::vector<const RunAnalysis*> out;
    for (const RunAnalysis& a : analysis.runs) {
        if (!a.gap_ns) continue;
        for (const HandoffStats& h : a.handoffs) {
            if (serialized(a, h)) {
                out.push_back(&a);
                break;
            }
        }
    }
    return out;
}

// What makes two runs' threads the same apart from their gap: launcher, GIL policy, payload.
std::string thread_kind(const RunResult& run) {
    return run.launcher + "|" + gil_of(run).value_or("") + "|" + top_setting(run, "payload");
}

double handoff_rate(const RunAnalysis& a) {
    double sum = 0;
    int n = 0;
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        sum += h.handoff_rate;
        ++n;
    }
    return n ? sum / n : 0;
}

}  // namespace

std::optional<std::string> gil_of(const RunResult& run) {
    // The GIL is the run's business where the launcher takes `gil`: always for a launcher that
    // runs no payload (host+gil) or needs one (python), with a payload for the others.
    const LauncherDescriptor* d = find_launcher(run.launcher);
    if (!d || !d->takes_gil) return std::nullopt;
    if (d->takes_payload && !d->needs_payload && top_setting(run, "payload").empty())
        return std::nullopt;
    const std::string gil = top_setting(run, "gil");
    return gil.empty() ? std::optional<std::string>("release") : gil;
}

void explain_calls_serialized(const RunResult& run, const RunAnalysis& a,
                              std::vector<std::string>& out) {
    size_t active = 0;
    for (const auto& w : a.workers) active += w.copies > 0 ? 1 : 0;
    if (active < 2 || a.host_peak != 1) return;
    // A copy that ends before the next worker's first call starts cannot overlap it: the
    // records say nothing about locks then.
    if (a.per_copy_ns.p50 < a.start_spread_ns) {
        out.push_back(fmt::format(
            "copies never overlapped because they are short: a copy took p50 {} while the "
            "workers' first calls spread over {}, so there was nothing to serialize",
            fmtx::duration(a.per_copy_ns.p50), fmtx::duration(a.start_spread_ns)));
        return;
    }
    const auto gil = gil_of(run);
    std::string cause;
    if (gil == "hold") {
        cause = "the GIL, held across the call (gil = hold)";
    } else if (gil) {
        cause = "a lock held across the call; not the GIL, which the copy releases (gil = release)";
    } else {
        cause = "a lock held across the call; not the GIL, which launcher " + run.launcher +
                " never takes";
    }
    out.push_back(fmt::format(
        "calls serialized: never two copies in flight (host-side peak 1) with {} workers: {}",
        active, cause));
}

void explain_handoff(const RunResult& run, const RunAnalysis& a, std::vector<std::string>& out) {
    bool any_serialized = false;
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        any_serialized = true;
        std::vector<int> kept, handed;
        for (const WorkerStats& w : a.workers) {
            if (w.device != h.device || w.run_length <= 0) continue;
            (w.run_length >= kKeepRunLength ? kept : handed).push_back(w.worker);
        }
        std::string line = fmt::format(
            "device {} changed hands after {} of consecutive copies (hand-off rate {:.2f}, mean "
            "run length {:.1f}): ",
            h.device, fmtx::percent(h.handoff_rate), h.handoff_rate, h.mean_run_length);
        if (!kept.empty()) {
            line += fmt::format("{} kept it ({}), ", worker_list(kept), gap_of(a, kept));
        }
        if (!handed.empty()) {
            line += fmt::format("{} handed it off after about one copy ({}), ", worker_list(handed),
                                gap_of(a, handed));
        }
        if (a.gap_ns) {
            line +=
                fmt::format("{} workers return to the driver after p50 {} (p90 {})", run.launcher,
                            fmtx::duration(a.gap_ns->p50), fmtx::duration(a.gap_ns->p90));
        } else {
            line += "no worker made two copies (no gap measured)";
        }
        out.push_back(line);
        // Within the run: every worker that kept the device returned faster than every worker
        // that handed it off. Then the gap orders who gets the device next in this run.
        if (!kept.empty() && !handed.empty()) {
            double slowest_keeper = 0, fastest_hander = 1e300;
            for (int w : kept)
                if (a.workers[size_t(w)].gap_ns)
                    slowest_keeper = std::max(slowest_keeper, a.workers[size_t(w)].gap_ns->p50);
            for (int w : handed)
                if (a.workers[size_t(w)].gap_ns)
                    fastest_hander = std::min(fastest_hander, a.workers[size_t(w)].gap_ns->p50);
            // An observation, not a cause: the cause needs a switch (summarize_mechanisms).
            if (slowest_keeper < fastest_hander) {
                out.push_back(fmt::format(
                    "on device {} the workers that returned sooner kept it: every worker that "
                    "kept it returned faster than every worker that handed it off",
                    h.device));
            }
        }
    }
    if (any_serialized && gil_of(run) == "release") {
        out.push_back(
            "the GIL is released during each copy (gil = release): it does not serialize the "
            "copies; it only lengthens the gap before the next call");
    }
}

void explain_contexts(const RunAnalysis& a, std::vector<std::string>& out) {
    for (const HandoffStats& h : a.handoffs) {
        const DeviceStats* d = device_stats(a, h.device);
        // Within a context of one worker nothing could overlap anyway: it shows nothing.
        if (!d || h.contexts < 2 || h.context_peak != 1 || d->peak < 2 || h.context_workers < 2)
            continue;
        out.push_back(fmt::format(
            "device {}: copies of {} CUDA contexts overlapped (peak {}, concurrency {:.1f}) but "
            "never two within one context: the serialization is per context",
            h.device, h.contexts, d->peak, d->concurrency));
    }
}

void summarize_mechanisms(const Results& results, const Analysis& analysis,
                          std::vector<std::string>& out) {
    // Gap against hand-off rate, over the runs whose device serialized.
    const auto runs = serialized_runs(analysis);
    if (runs.size() >= 2) {
        std::vector<std::string> parts;
        double max_low = -1, min_high = -1;
        int low = 0, high = 0;
        std::set<std::string> low_kinds, high_kinds;
        for (const RunAnalysis* a : runs) {
            const RunResult& r = results.runs[size_t(&*a - &analysis.runs[0])];
            const double rate = handoff_rate(*a);
            parts.push_back(fmt::format("run {} ({}) gap p50 {}, hand-off rate {:.2f}", a->run,
                                        r.launcher, fmtx::duration(a->gap_ns->p50), rate));
            (rate >= kHandoffHigh ? high_kinds : low_kinds).insert(thread_kind(r));
            if (rate >= kHandoffHigh) {
                ++high;
                min_high = min_high < 0 ? a->gap_ns->p50 : std::min(min_high, a->gap_ns->p50);
            } else {
                ++low;
                max_low = std::max(max_low, a->gap_ns->p50);
            }
        }
        out.push_back("serialized devices, gap after a copy vs hand-off: " +
                      fmt::format("{}", fmt::join(parts, "; ")));
        // A cause needs a switch: the same threads on both sides (a `between` that only changed
        // the gap). Host threads against Python threads, or gil = release against hold, differ
        // in more than the gap.
        bool switched = false;
        for (const auto& k : low_kinds) switched |= high_kinds.count(k) > 0;
        if (low > 0 && high > 0 && max_low < min_high && switched) {
            out.push_back(fmt::format(
                "every run whose workers returned within {} kept the device, every run whose "
                "workers returned after {} or more handed it over: the gap decides who gets the "
                "device next",
                fmtx::duration(max_low), fmtx::duration(min_high)));
        }
    }
    // Shared-context threads serialized while per-worker contexts or processes overlapped.
    std::vector<int> shared, separate;
    for (size_t i = 0; i < analysis.runs.size(); ++i) {
        const RunAnalysis& a = analysis.runs[i];
        const RunResult& r = results.runs[i];
        if (!a.device_peak || a.copies == 0) continue;
        if (shares_primary_context(r) && *a.device_peak == 1 && r.threads >= 2) {
            shared.push_back(a.run);
        } else if (!shares_primary_context(r) && *a.device_peak >= 2) {
            separate.push_back(a.run);
        }
    }
    if (!shared.empty() && !separate.empty()) {
        out.push_back(fmt::format(
            "threads sharing the primary context never overlapped on a device (runs {}) while "
            "workers with their own context did (runs {}): the serialization is per context",
            fmt::join(shared, ", "), fmt::join(separate, ", ")));
    }
    // Warm-ups inside the window: once for the report.
    std::vector<int> with;
    size_t total = 0;
    for (const RunAnalysis& a : analysis.runs) {
        if (a.warmup_copies_in_window == 0) continue;
        with.push_back(a.run);
        total += a.warmup_copies_in_window;
    }
    if (!with.empty()) {
        out.push_back(fmt::format(
            "{} warm-up cop{} ran inside the measurement window (runs {}: workers took turns, so "
            "one worker's warm-up overlapped another's measured copies); the aggregate counts "
            "the bytes they moved",
            total, total == 1 ? "y" : "ies", fmt::join(with, ", ")));
    }
}

}  // namespace xfer
