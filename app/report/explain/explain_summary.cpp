// The summary's rules: bookkeeping (interrupted, incomplete, sizing, baselines, extremes), the
// verdicts across trials, the noise lists, serialized devices, warm-ups inside the window and
// failed runs (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain/explain_rules_internal.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// A line whose text after `head` comes from the results themselves (a note, a label): a claim
// field, never part of the shape, so that braces in it are text.
Finding said(const std::string& head, const std::string& text) {
    return Finding{}.say(head + "{text}").claim("text", text);
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

void incomplete(const Results& results, std::vector<Finding>& out) {
    if (results.complete || results.interrupted) return;
    // Counts first: the table wraps long lines, and this is what a reader looks for.
    Finding f;
    f.figure("here", double(results.runs.size()), std::to_string(results.runs.size()));
    if (results.planned_runs > 0)
        out.push_back(f.say("incomplete: {here} of {planned} planned runs are here; the plan did "
                            "not finish (xferlab was still running, or ended abruptly)")
                          .figure("planned", results.planned_runs,
                                  std::to_string(results.planned_runs)));
    else
        out.push_back(f.say("incomplete: {here} runs are here; whether the plan finished is not "
                            "recorded (a journal holds completed runs only)"));
}

void baselines(const Results& results, const Analysis& analysis, std::vector<Finding>& out) {
    if (!analysis.baseline_run) {
        out.push_back(Finding{}.say("no run finished ok with measured copies: nothing to compare"));
        return;
    }
    std::vector<std::string> bases;
    for (const TrialGroup& g : analysis.groups)
        if (g.is_baseline) bases.push_back("'" + g.label + "'");
    if (bases.size() > 1) {
        out.push_back(Finding{}
                          .say("baselines, one per sweep point: {labels}")
                          .claim("labels", fmt::format("{}", fmt::join(bases, ", "))));
        return;
    }
    const RunResult& base = results.runs[size_t(*analysis.baseline_run)];
    out.push_back(Finding{}
                      .say("baseline: {run} ({label})")
                      .runs("run", {base.position.index})
                      .claim("label", base.position.label));
}

// The highest and lowest aggregate among runs with copies: figures, not a verdict.
void extremes(const Results& results, const Analysis& analysis, std::vector<Finding>& out) {
    size_t hi = 0, lo = 0, with_copies = 0;
    for (size_t i = 0; i < analysis.runs.size(); ++i) {
        const double agg = analysis.runs[i].aggregate_Bps;
        if (agg <= 0) continue;
        if (with_copies++ == 0 || agg > analysis.runs[hi].aggregate_Bps) hi = i;
        if (with_copies == 1 || agg < analysis.runs[lo].aggregate_Bps) lo = i;
    }
    if (with_copies < 2 || hi == lo) return;
    const double h = analysis.runs[hi].aggregate_Bps, l = analysis.runs[lo].aggregate_Bps;
    out.push_back(Finding{}
                      .say("highest aggregate: {high} ({high_label}) {high_rate}; lowest: {low} "
                           "({low_label}) {low_rate} ({apart} apart)")
                      .runs("high", {results.runs[hi].position.index})
                      .claim("high_label", results.runs[hi].position.label)
                      .figure("high_rate", h, fmtx::gbps_unit(h))
                      .runs("low", {results.runs[lo].position.index})
                      .claim("low_label", results.runs[lo].position.label)
                      .figure("low_rate", l, fmtx::gbps_unit(l))
                      .figure("apart", h / l, fmtx::ratio(h / l)));
}

}  // namespace

void bookkeeping(const RuleInput& in, std::vector<Finding>& out) {
    const Results& results = in.results;
    // What xferlab changed in its input to use it (a --set flag that was not UTF-8).
    if (const auto notes = results.scenario.find("notes");
        notes != results.scenario.end() && notes->is_array())
        for (const auto& n : *notes)
            if (n.is_string()) out.push_back(said("input: ", n.get<std::string>()));
    if (results.interrupted) out.push_back(Finding{}.say("interrupted: the results are partial"));
    incomplete(results, out);
    // What reading the results found (a journal's lines left out): beside "incomplete", since
    // both say which runs are missing.
    for (const std::string& note : results.notes) out.push_back(said("", note));
    if (results.sizing.is_object() && results.sizing.value("reduced", false))
        out.push_back(said("sized for this machine (--fit): ", results.sizing.value("note", "")));
    baselines(results, in.analysis, out);
    extremes(results, in.analysis, out);
}

void verdicts(const RuleInput& in, std::vector<Finding>& out) {
    using Verdict = TrialComparison::Finding;
    std::map<Verdict, std::vector<std::string>> by;
    size_t most_trials = 0;
    for (const TrialGroup& g : in.analysis.groups) {
        most_trials = std::max(most_trials, g.aggregate_Bps.size());
        if (g.vs_baseline)
            by[g.vs_baseline->finding].push_back(
                fmt::format("'{}' {}", g.label, fmtx::ratio(g.vs_baseline->ratio)));
    }
    if (most_trials == 1) {
        out.push_back(Finding{}.say(fmt::format(
            "one trial per run: drift between runs is unknown, so no run is called faster or "
            "slower; run with --trials {} (or scenario.trials) to judge",
            kSuggestedTrials)));
    }
    const auto line = [&](Verdict v, const std::string& head) {
        if (by[v].empty()) return;
        out.push_back(Finding{}
                          .say(head + "{groups}")
                          .claim("verdict", finding_name(v))
                          .claim("groups", fmt::format("{}", fmt::join(by[v], ", "))));
    };
    line(Verdict::faster, "faster than the baseline of its sweep point: ");
    line(Verdict::slower, "slower than the baseline of its sweep point: ");
    line(Verdict::negligible,
         "a difference from the baseline of its sweep point under 1 % (negligible): ");
    line(Verdict::no_difference, "no difference found from the baseline of its sweep point: ");
    line(Verdict::not_testable,
         fmt::format("not testable with these trial counts (the test cannot reach p < 0.05; run "
                     "with --trials {}): ",
                     kSuggestedTrials));
}

namespace {

// Whether run `a` says "same aggregate, slower copies" on the trials' word (its finding cites
// their verdict), not on one trial's noise alone.
bool same_aggregate_on_trials(const RunAnalysis& a) {
    return std::any_of(a.findings.begin(), a.findings.end(), [](const Finding& f) {
        return f.rule == "same-aggregate-slower-copies" && f.field("trials");
    });
}

}  // namespace

void noise_lists(const RuleInput& in, std::vector<Finding>& out) {
    std::vector<int> within, beyond, slower_copies;
    for (const auto& a : in.analysis.runs) {
        if (!a.vs_baseline || !a.vs_baseline->judged) continue;
        (a.vs_baseline->within_noise ? within : beyond).push_back(a.run);
        if (same_aggregate_on_trials(a)) slower_copies.push_back(a.run);
    }
    if (!within.empty())
        out.push_back(Finding{}
                          .say("aggregate inside the noise of its own run and the baseline's: "
                               "{runs}")
                          .runs("runs", within));
    if (!beyond.empty())
        out.push_back(Finding{}
                          .say("aggregate outside the noise of its own run and the baseline's: "
                               "{runs} (drift between runs not included)")
                          .runs("runs", beyond));
    if (!slower_copies.empty())
        out.push_back(Finding{}
                          .say("per-copy bandwidth understates {runs}: the trials found no "
                               "difference in the aggregate, the copies were slower")
                          .runs("runs", slower_copies));
}

void gap_vs_handoff(const RuleInput& in, std::vector<Finding>& out) {
    Finding f;
    f.say("serialized devices, gap after a copy vs hand-off: ");
    int parts = 0;
    for (size_t i = 0; i < in.analysis.runs.size(); ++i) {
        const RunAnalysis& a = in.analysis.runs[i];
        const auto rate = serialized_handoff_rate(a);
        if (!a.gap_ns || !rate) continue;
        const std::string n = std::to_string(parts++);
        f.say(fmt::format("{}{{run{}}} ({{launcher{}}}) gap p50 {{gap{}}}, hand-off rate {{rate{}}}",
                          parts > 1 ? "; " : "", n, n, n, n))
            .runs("run" + n, {a.run})
            .claim("launcher" + n, in.results.runs[i].settings.launcher)
            .figure("gap" + n, a.gap_ns->p50, fmtx::duration(a.gap_ns->p50))
            .figure("rate" + n, *rate, fmt::format("{:.2f}", *rate));
    }
    if (parts >= 2) out.push_back(std::move(f));
}

void warmups_in_window(const RuleInput& in, std::vector<Finding>& out) {
    std::vector<int> with, turns;
    size_t total = 0;
    for (const RunAnalysis& a : in.analysis.runs) {
        if (a.warmup_copies_in_window == 0) continue;
        with.push_back(a.run);
        total += a.warmup_copies_in_window;
        if (devices_took_turns(a)) turns.push_back(a.run);
    }
    if (with.empty()) return;
    Finding f;
    f.say(fmt::format("{{count}} warm-up cop{} overlapped the measurement window ({{runs}}): the "
                      "aggregate counts the bytes they moved inside it",
                      total == 1 ? "y" : "ies"))
        .figure("count", double(total), std::to_string(total))
        .runs("runs", with);
    if (!turns.empty())
        f.say("; on {turns}, whose devices never had two transfers at once, the workers took "
              "turns, so one worker's warm-up ran inside another's measured copies")
            .runs("turns", turns);
    out.push_back(std::move(f));
}

void failed_runs(const RuleInput& in, std::vector<Finding>& out) {
    for (const RunResult& r : in.results.runs) {
        if (r.status == RunStatus::ok) continue;
        Finding f;
        f.say("{run} ({label}) {status}")
            .runs("run", {r.position.index})
            .claim("label", r.position.label)
            .claim("status", to_string(r.status));
        if (!r.errors.empty()) f.say(": {error}").claim("error", error_line(r.errors.front()));
        out.push_back(std::move(f));
    }
}

}  // namespace xfer::explain
