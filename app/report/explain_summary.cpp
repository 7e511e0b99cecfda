// The summary's rules: bookkeeping (interrupted, incomplete, sizing, baselines, extremes), the
// verdicts across trials, the noise lists, serialized devices, warm-ups inside the window and
// failed runs (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain_rules_internal.hpp"
#include "report/trial_analysis.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

std::string run_name(const RunResult& r) { return fmt::format("run {} ({})", r.index, r.label); }

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

void incomplete(const Results& results, std::vector<std::string>& out) {
    if (results.complete || results.interrupted) return;
    // Counts first: the table wraps long lines, and this is what a reader looks for.
    if (results.planned_runs > 0)
        out.push_back(fmt::format(
            "incomplete: {} of {} planned runs are here; the plan did not finish (xferlab was "
            "still running, or ended abruptly)",
            results.runs.size(), results.planned_runs));
    else
        out.push_back(fmt::format(
            "incomplete: {} runs are here; whether the plan finished is not recorded (a journal "
            "holds completed runs only)",
            results.runs.size()));
}

void baselines(const Results& results, const Analysis& analysis, std::vector<std::string>& out) {
    if (!analysis.baseline_run) {
        out.push_back("no run finished ok with measured copies: nothing to compare");
        return;
    }
    std::vector<std::string> bases;
    for (const TrialGroup& g : analysis.groups)
        if (g.is_baseline) bases.push_back("'" + g.label + "'");
    if (bases.size() > 1)
        out.push_back(fmt::format("baselines, one per sweep point: {}", fmt::join(bases, ", ")));
    else
        out.push_back(
            fmt::format("baseline: {}", run_name(results.runs[size_t(*analysis.baseline_run)])));
}

// The highest and lowest aggregate among runs with copies: figures, not a verdict.
void extremes(const Results& results, const Analysis& analysis, std::vector<std::string>& out) {
    size_t hi = 0, lo = 0, with_copies = 0;
    for (size_t i = 0; i < analysis.runs.size(); ++i) {
        const double agg = analysis.runs[i].aggregate_Bps;
        if (agg <= 0) continue;
        if (with_copies++ == 0 || agg > analysis.runs[hi].aggregate_Bps) hi = i;
        if (with_copies == 1 || agg < analysis.runs[lo].aggregate_Bps) lo = i;
    }
    if (with_copies < 2 || hi == lo) return;
    const double h = analysis.runs[hi].aggregate_Bps, l = analysis.runs[lo].aggregate_Bps;
    out.push_back(fmt::format("highest aggregate: {} {}; lowest: {} {} ({} apart)",
                              run_name(results.runs[hi]), fmtx::gbps_unit(h),
                              run_name(results.runs[lo]), fmtx::gbps_unit(l), fmtx::ratio(h / l)));
}

}  // namespace

void bookkeeping(const RuleInput& in, std::vector<std::string>& out) {
    const Results& results = in.results;
    // What xferlab changed in its input to use it (a --set flag that was not UTF-8).
    if (const auto notes = results.scenario.find("notes");
        notes != results.scenario.end() && notes->is_array())
        for (const auto& n : *notes)
            if (n.is_string()) out.push_back("input: " + n.get<std::string>());
    if (results.interrupted) out.push_back("interrupted: the results are partial");
    incomplete(results, out);
    // What reading the results found (a journal's lines left out): beside "incomplete", since
    // both say which runs are missing.
    out.insert(out.end(), results.notes.begin(), results.notes.end());
    if (results.sizing.is_object() && results.sizing.value("reduced", false))
        out.push_back("sized for this machine (--fit): " + results.sizing.value("note", ""));
    baselines(results, in.analysis, out);
    extremes(results, in.analysis, out);
}

void verdicts(const RuleInput& in, std::vector<std::string>& out) {
    using Finding = TrialComparison::Finding;
    std::map<Finding, std::vector<std::string>> by;
    size_t most_trials = 0;
    for (const TrialGroup& g : in.analysis.groups) {
        most_trials = std::max(most_trials, g.aggregate_Bps.size());
        if (g.vs_baseline)
            by[g.vs_baseline->finding].push_back(
                fmt::format("'{}' {}", g.label, fmtx::ratio(g.vs_baseline->ratio)));
    }
    if (most_trials == 1) {
        out.push_back(fmt::format(
            "one trial per run: drift between runs is unknown, so no run is called faster or "
            "slower; run with --trials {} (or scenario.trials) to judge",
            kSuggestedTrials));
    }
    const auto line = [&](Finding f, const std::string& head) {
        if (!by[f].empty()) out.push_back(head + fmt::format("{}", fmt::join(by[f], ", ")));
    };
    line(Finding::faster, "faster than the baseline of its sweep point: ");
    line(Finding::slower, "slower than the baseline of its sweep point: ");
    line(Finding::negligible,
         "a difference from the baseline of its sweep point under 1 % (negligible): ");
    line(Finding::no_difference, "no difference found from the baseline of its sweep point: ");
    line(Finding::not_testable,
         fmt::format("not testable with these trial counts (the test cannot reach p < 0.05; run "
                     "with --trials {}): ",
                     kSuggestedTrials));
}

void noise_lists(const RuleInput& in, std::vector<std::string>& out) {
    std::vector<int> within, beyond, slower_copies;
    for (const auto& a : in.analysis.runs) {
        if (!a.vs_baseline || !a.vs_baseline->judged) continue;
        (a.vs_baseline->within_noise ? within : beyond).push_back(a.run);
        if (a.vs_baseline->within_noise && !a.vs_baseline->p50_within_noise &&
            a.vs_baseline->p50_ratio < 1)
            slower_copies.push_back(a.run);
    }
    if (!within.empty())
        out.push_back(fmt::format(
            "aggregate inside the noise of its own run and the baseline's: {}", runs_list(within)));
    if (!beyond.empty())
        out.push_back(fmt::format(
            "aggregate outside the noise of its own run and the baseline's: {} (drift between "
            "runs not included)",
            runs_list(beyond)));
    // Which mechanism, if any, each run's own explanation says.
    if (!slower_copies.empty())
        out.push_back(
            fmt::format("per-copy bandwidth understates {}: same aggregate, slower copies",
                        runs_list(slower_copies)));
}

void gap_vs_handoff(const RuleInput& in, std::vector<std::string>& out) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < in.analysis.runs.size(); ++i) {
        const RunAnalysis& a = in.analysis.runs[i];
        const auto rate = serialized_handoff_rate(a);
        if (!a.gap_ns || !rate) continue;
        parts.push_back(fmt::format("run {} ({}) gap p50 {}, hand-off rate {:.2f}", a.run,
                                    in.results.runs[i].launcher, fmtx::duration(a.gap_ns->p50),
                                    *rate));
    }
    if (parts.size() >= 2)
        out.push_back(fmt::format("serialized devices, gap after a copy vs hand-off: {}",
                                  fmt::join(parts, "; ")));
}

void warmups_in_window(const RuleInput& in, std::vector<std::string>& out) {
    std::vector<int> with, turns;
    size_t total = 0;
    for (const RunAnalysis& a : in.analysis.runs) {
        if (a.warmup_copies_in_window == 0) continue;
        with.push_back(a.run);
        total += a.warmup_copies_in_window;
        if (devices_took_turns(a)) turns.push_back(a.run);
    }
    if (with.empty()) return;
    std::string line = fmt::format(
        "{} warm-up cop{} overlapped the measurement window ({}): the aggregate counts the bytes "
        "they moved inside it",
        total, total == 1 ? "y" : "ies", runs_list(with));
    if (!turns.empty())
        line += fmt::format(
            "; on {}, whose devices never had two transfers at once, the workers took turns, so "
            "one worker's warm-up ran inside another's measured copies",
            runs_list(turns));
    out.push_back(line);
}

void failed_runs(const RuleInput& in, std::vector<std::string>& out) {
    for (const RunResult& r : in.results.runs) {
        if (r.status == RunStatus::ok) continue;
        out.push_back(fmt::format("{} {}{}", run_name(r), to_string(r.status),
                                  r.errors.empty() ? "" : ": " + error_line(r.errors.front())));
    }
}

}  // namespace xfer::explain
