#include "report/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/explain_mechanism.hpp"
#include "report/trial_analysis.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

// Host-side concurrency at least this high, and this many times the device-side one, means
// calls overlap while transfers do not.
constexpr double kOverlapHostMin = 1.5;
constexpr double kOverlapFactor = 1.5;
// A call that spends this fraction of its p50 duration before the device starts is waiting.
constexpr double kPreDeviceFraction = 0.25;
// A copy this many times slower than the median copy is a stall that dominates the run's
// spread (and, through the window, its aggregate).
constexpr double kStallFactor = 5;
// Jain's index below this (with 2+ workers) is called unfair: with 4 workers, 0.9 is e.g. one
// worker served at about half the rate of the other three.
constexpr double kUnfairJain = 0.9;

std::string run_name(const RunResult& r) { return fmt::format("run {} ({})", r.index, r.label); }

std::string runs_list(const std::vector<int>& runs) {
    return fmt::format("{} {}", runs.size() == 1 ? "run" : "runs", fmt::join(runs, ", "));
}

// One line of an error for the summary: where the error holds a Python traceback (after a line
// saying where it came from, such as "exception in payload thread 'x':"), its last line, which
// names the exception; anything else its first line.
std::string error_line(const std::string& e) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= e.size()) {
        size_t end = e.find('\n', start);
        if (end == std::string::npos) end = e.size();
        if (end > start) lines.push_back(e.substr(start, end - start));
        start = end + 1;
    }
    if (lines.empty()) return "";
    for (const auto& line : lines)
        if (line.rfind("Traceback", 0) == 0) return lines.back();
    return lines.front();
}

void explain_devices(const RunAnalysis& a, std::vector<std::string>& out) {
    // Serialized: 2+ workers on a device and never two transfers in flight on it.
    for (const DeviceStats& d : a.devices) {
        if (d.workers < 2 || d.copies < 2 || d.peak != 1) continue;
        out.push_back(fmt::format(
            "copies serialized on device {}: device-side concurrency {:.1f} (peak 1) with {} "
            "workers",
            d.device, d.concurrency, d.workers));
    }
    if (a.device_concurrency && a.host_concurrency >= kOverlapHostMin &&
        a.host_concurrency >= kOverlapFactor * *a.device_concurrency) {
        out.push_back(fmt::format(
            "host-side concurrency {:.1f} but device-side {:.1f}: calls overlap, transfers do "
            "not; per-copy bandwidth measures waiting",
            a.host_concurrency, *a.device_concurrency));
    }
    if (a.pre_device_ns && a.per_copy_ns.p50 > 0 &&
        a.pre_device_ns->p50 >= kPreDeviceFraction * a.per_copy_ns.p50) {
        out.push_back(fmt::format(
            "calls wait {} (p50) before the device starts moving bytes: {} of a call's p50 {}",
            fmtx::duration(a.pre_device_ns->p50),
            fmtx::percent(a.pre_device_ns->p50 / a.per_copy_ns.p50),
            fmtx::duration(a.per_copy_ns.p50)));
    }
}

// One or a few very slow copies: they widen every noise bound of this run, and the aggregate
// includes them because they stretch the window.
void explain_stalls(const RunAnalysis& a, std::vector<std::string>& out) {
    const Distribution& d = a.per_copy_ns;
    if (d.n < 2 || d.p50 <= 0 || d.max < kStallFactor * d.p50) return;
    out.push_back(fmt::format(
        "erratic: the slowest copy took {} ({:.0f}x the median {}); the aggregate includes it "
        "and the noise bounds of this run widen with it",
        fmtx::duration(d.max), d.max / d.p50, fmtx::duration(d.p50)));
}

void explain_fairness(const RunAnalysis& a, std::vector<std::string>& out) {
    if (a.workers.size() < 2 || a.fairness >= kUnfairJain) return;
    const WorkerStats* top = &a.workers.front();
    for (const auto& w : a.workers) {
        if (w.share > top->share) top = &w;
    }
    out.push_back(fmt::format(
        "unfair: Jain {:.2f}, worker {} got {} of the bandwidth (a fair share is {})", a.fairness,
        top->worker, fmtx::percent(top->share), fmtx::percent(1.0 / double(a.workers.size()))));
}

void explain_scaling(const RunResult& run, const RunAnalysis& a, std::vector<std::string>& out) {
    if (!a.scaling || !a.scaling_within_noise) return;
    if (*a.scaling_within_noise) {
        out.push_back(fmt::format(
            "scaling {} for {} threads (vs run {}): within noise of one thread, no gain from "
            "more threads",
            fmtx::ratio(*a.scaling), run.threads, *a.scaling_reference));
    } else if (*a.scaling < 1) {
        out.push_back(fmt::format(
            "scaling {} for {} threads (vs run {}): more threads move fewer bytes per second "
            "than one",
            fmtx::ratio(*a.scaling), run.threads, *a.scaling_reference));
    }
}

void explain_baseline(const RunAnalysis& a, std::vector<std::string>& out) {
    if (!a.vs_baseline || !a.vs_baseline->judged) return;
    const Comparison& c = *a.vs_baseline;
    // Same bytes per second overall, yet each copy takes much longer: the copies spend the
    // difference waiting for each other (a lock or device hand-off), not moving bytes slower.
    if (c.within_noise && !c.p50_within_noise && c.p50_ratio > 0 && c.p50_ratio < 1) {
        out.push_back(fmt::format(
            "aggregate within noise of baseline (run {}) but per-copy p50 {} lower: copies "
            "take longer without moving fewer bytes overall, a hand-off effect",
            c.baseline_run, fmtx::ratio(1 / c.p50_ratio)));
    }
}

// The verdicts across trials, by finding; with one trial per run, why there is none.
void summarize_trials(const Analysis& analysis, std::vector<std::string>& out) {
    std::vector<std::string> faster, slower, none;
    size_t most_trials = 0;
    for (const TrialGroup& g : analysis.groups) {
        most_trials = std::max(most_trials, g.aggregate_Bps.size());
        if (!g.vs_baseline) continue;
        using Finding = TrialComparison::Finding;
        const Finding f = g.vs_baseline->finding;
        (f == Finding::faster   ? faster
         : f == Finding::slower ? slower
                                : none)
            .push_back(fmt::format("'{}' {}", g.label, fmtx::ratio(g.vs_baseline->ratio)));
    }
    if (most_trials == 1) {
        out.push_back(fmt::format(
            "one trial per run: drift between runs is unknown, so no run is called faster or "
            "slower; run with --trials {} (or scenario.trials) to judge",
            kSuggestedTrials));
    }
    const auto line = [&](const char* what, const std::vector<std::string>& labels) {
        if (!labels.empty())
            out.push_back(fmt::format("{} than the baseline of its sweep point: {}", what,
                                      fmt::join(labels, ", ")));
    };
    line("faster", faster);
    line("slower", slower);
    if (!none.empty() && most_trials > 1)
        out.push_back(fmt::format("no difference found from the baseline of its sweep point: {}",
                                  fmt::join(none, ", ")));
}

}  // namespace

std::vector<std::string> explain_run(const RunResult& run, const RunAnalysis& a) {
    std::vector<std::string> out;
    if (a.copies == 0) {
        if (run.status != RunStatus::skipped) out.push_back("no measured copies");
        return out;
    }
    explain_calls_serialized(run, a, out);
    explain_devices(a, out);
    explain_handoff(run, a, out);
    explain_contexts(a, out);
    explain_baseline(a, out);
    explain_stalls(a, out);
    explain_fairness(a, out);
    explain_scaling(run, a, out);
    return out;
}

std::vector<std::string> summarize(const Results& results, const Analysis& analysis) {
    std::vector<std::string> out;
    // What xferlab changed in its input to use it (a --set flag that was not UTF-8).
    if (const auto notes = results.scenario.find("notes");
        notes != results.scenario.end() && notes->is_array())
        for (const auto& n : *notes)
            if (n.is_string()) out.push_back("input: " + n.get<std::string>());
    if (results.interrupted) out.push_back("interrupted: the results are partial");
    if (!results.complete && !results.interrupted) {
        // Counts first: the table wraps long lines, and this is what a reader looks for.
        if (results.planned_runs > 0) {
            out.push_back(fmt::format(
                "incomplete: {} of {} planned runs are here; the plan did not finish (xferlab "
                "was still running, or ended abruptly)",
                results.runs.size(), results.planned_runs));
        } else {
            out.push_back(fmt::format(
                "incomplete: {} runs are here; whether the plan finished is not recorded (a "
                "journal holds completed runs only)",
                results.runs.size()));
        }
    }
    // What reading the results found (a journal's lines left out): beside "incomplete", since
    // both say which runs are missing.
    out.insert(out.end(), results.notes.begin(), results.notes.end());
    if (results.sizing.is_object() && results.sizing.value("reduced", false))
        out.push_back("sized for this machine (--fit): " + results.sizing.value("note", ""));
    if (!analysis.baseline_run) {
        out.push_back("no run finished ok with measured copies: nothing to compare");
    } else {
        std::vector<std::string> bases;
        for (const TrialGroup& g : analysis.groups)
            if (g.is_baseline) bases.push_back("'" + g.label + "'");
        if (bases.size() > 1) {
            out.push_back(
                fmt::format("baselines, one per sweep point: {}", fmt::join(bases, ", ")));
        } else {
            const RunResult& base = results.runs[size_t(*analysis.baseline_run)];
            out.push_back(fmt::format("baseline: {}", run_name(base)));
        }
    }

    // Fastest and slowest aggregate among runs with copies (positions in results.runs).
    size_t hi = 0, lo = 0, with_copies = 0;
    for (size_t i = 0; i < analysis.runs.size(); ++i) {
        const double agg = analysis.runs[i].aggregate_Bps;
        if (agg <= 0) continue;
        if (with_copies++ == 0 || agg > analysis.runs[hi].aggregate_Bps) hi = i;
        if (with_copies == 1 || agg < analysis.runs[lo].aggregate_Bps) lo = i;
    }
    if (with_copies >= 2 && hi != lo) {
        const double h = analysis.runs[hi].aggregate_Bps, l = analysis.runs[lo].aggregate_Bps;
        out.push_back(fmt::format("highest aggregate: {} {}; lowest: {} {} ({} apart)",
                                  run_name(results.runs[hi]), fmtx::gbps_unit(h),
                                  run_name(results.runs[lo]), fmtx::gbps_unit(l),
                                  fmtx::ratio(h / l)));
    }

    std::vector<int> within, beyond, handoff;
    for (const auto& a : analysis.runs) {
        if (!a.vs_baseline || !a.vs_baseline->judged) continue;
        (a.vs_baseline->within_noise ? within : beyond).push_back(a.run);
        if (a.vs_baseline->within_noise && !a.vs_baseline->p50_within_noise &&
            a.vs_baseline->p50_ratio < 1) {
            handoff.push_back(a.run);
        }
    }
    summarize_trials(analysis, out);
    if (!within.empty()) {
        out.push_back(fmt::format(
            "aggregate inside the noise of its own run and the baseline's: {}", runs_list(within)));
    }
    if (!beyond.empty()) {
        out.push_back(fmt::format(
            "aggregate outside the noise of its own run and the baseline's: {} (drift between "
            "runs not included)",
            runs_list(beyond)));
    }
    if (!handoff.empty()) {
        out.push_back(fmt::format(
            "per-copy bandwidth understates {}: same aggregate, slower copies (hand-off)",
            runs_list(handoff)));
    }
    summarize_mechanisms(results, analysis, out);
    for (const RunResult& r : results.runs) {
        if (r.status == RunStatus::ok) continue;
        out.push_back(fmt::format("{} {}{}", run_name(r), to_string(r.status),
                                  r.errors.empty() ? "" : ": " + error_line(r.errors.front())));
    }
    return out;
}

}  // namespace xfer
