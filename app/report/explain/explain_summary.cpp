// The summary's rules: bookkeeping (interrupted, incomplete, sizing, baselines, extremes), the
// verdicts across trials, the noise lists, serialized devices, warm-ups inside the window and
// failed runs (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/analysis/trial_analysis.hpp"
#include "report/explain/explain_rules_internal.hpp"
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
        out.push_back(
            f.say("incomplete: {here} of {planned} planned runs are here; the plan did "
                  "not finish (xferlab was still running, or ended abruptly)")
                .figure("planned", results.planned_runs, std::to_string(results.planned_runs)));
    else
        out.push_back(
            f.say("incomplete: {here} runs are here; whether the plan finished is not "
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
    if (plan_has_trials(analysis)) {  // every trial of the label is its trial's baseline
        out.push_back(Finding{}.say("baseline: '{label}'").claim("label", base.position.label));
        return;
    }
    out.push_back(Finding{}
                      .say("baseline: {run} ({label})")
                      .runs("run", {base.position.index})
                      .claim("label", base.position.label));
}

// The highest and lowest aggregate among runs with copies: figures, not a verdict. With trials
// the verdicts table gives each run of the plan's median, which is what a reader compares.
void extremes(const Results& results, const Analysis& analysis, std::vector<Finding>& out) {
    if (plan_has_trials(analysis)) return;
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
    // With trials the verdicts table gives each label's verdict, word and test; the summary
    // repeats them only for a plan whose table is not the first thing printed.
    const auto line = [&](Verdict v, const std::string& head) {
        if (by[v].empty() || plan_has_trials(in.analysis)) return;
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
    // With trials the verdicts across them judge the runs; one run's noise does not cover
    // drift between runs, so the lists of one trial against its baseline are left out.
    const bool trials = plan_has_trials(in.analysis);
    for (const auto& a : in.analysis.runs) {
        if (!a.vs_baseline || !a.vs_baseline->judged) continue;
        (a.vs_baseline->within_noise ? within : beyond).push_back(a.run);
        if (same_aggregate_on_trials(a)) slower_copies.push_back(a.run);
    }
    // With trials each label's Why line says that its copies were slower at the same aggregate.
    if (trials) within.clear(), beyond.clear(), slower_copies.clear();
    if (!within.empty())
        out.push_back(Finding{}
                          .say("aggregate inside the noise of its own run and the baseline's: "
                               "{runs}")
                          .runs("runs", within, runs_by_label(in.results, within)));
    if (!beyond.empty())
        out.push_back(Finding{}
                          .say("aggregate outside the noise of its own run and the baseline's: "
                               "{runs} (drift between runs not included)")
                          .runs("runs", beyond, runs_by_label(in.results, beyond)));
    if (!slower_copies.empty())
        out.push_back(Finding{}
                          .say("per-copy bandwidth understates {runs}: the trials found no "
                               "difference in the aggregate, the copies were slower")
                          .runs("runs", slower_copies, runs_by_label(in.results, slower_copies)));
}

namespace {

// One label's serialized runs for gap-vs-handoff: its trials' gap p50s and hand-off rates.
struct GapRates {
    std::string label, launcher;
    std::vector<int> runs;
    std::vector<double> gaps, rates;
};

// "{gap0}" for one value, "{gap0_lo} to {gap0_hi}" for several (as each is printed).
void say_range(Finding& f, const std::string& name, const std::vector<double>& values,
               std::string (*format)(double)) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    if (format(*lo) == format(*hi)) {
        f.say("{" + name + "}").figure(name, *lo, format(*lo));
        return;
    }
    f.say("{" + name + "_lo} to {" + name + "_hi}")
        .figure(name + "_lo", *lo, format(*lo))
        .figure(name + "_hi", *hi, format(*hi));
}

std::string duration_text(double ns) { return fmtx::duration(ns); }
std::string rate_text(double r) { return fmt::format("{:.2f}", r); }

}  // namespace

void gap_vs_handoff(const RuleInput& in, std::vector<Finding>& out) {
    // One part per label: its trials together (a reader compares labels, not trials).
    std::vector<GapRates> labels;
    for (size_t i = 0; i < in.analysis.runs.size(); ++i) {
        const RunAnalysis& a = in.analysis.runs[i];
        const auto rate = serialized_handoff_rate(a);
        if (!a.gap_ns || !rate || !a.calls_hold_transfers) continue;
        const RunResult& r = in.results.runs[i];
        auto it = std::find_if(labels.begin(), labels.end(),
                               [&](const GapRates& g) { return g.label == r.position.label; });
        if (it == labels.end())
            it = labels.insert(labels.end(), {r.position.label, r.settings.launcher, {}, {}, {}});
        it->runs.push_back(a.run);
        it->gaps.push_back(a.gap_ns->p50);
        it->rates.push_back(*rate);
    }
    if (labels.size() < 2) return;
    Finding f;
    f.say("serialized devices, gap after a copy vs hand-off: ");
    for (size_t k = 0; k < labels.size(); ++k) {
        const GapRates& g = labels[k];
        const std::string n = std::to_string(k);
        f.say(fmt::format("{}{{launcher{}}} workers of {{run{}}}: gap p50 ", k ? "; " : "", n, n))
            .runs("run" + n, g.runs, runs_by_label(in.results, g.runs))
            .claim("launcher" + n, g.launcher);
        say_range(f, "gap" + n, g.gaps, duration_text);
        f.say(", hand-off rate ");
        say_range(f, "rate" + n, g.rates, rate_text);
    }
    out.push_back(std::move(f));
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
        .runs("runs", with, runs_by_label(in.results, with));
    if (!turns.empty() && turns == with)  // the same runs: said once
        f.say("; every device of these runs had one transfer at a time: the workers took turns, "
              "so one worker's warm-up ran inside another's measured copies");
    else if (!turns.empty())
        f.say("; on {turns}, whose devices never had two transfers at once, the workers took "
              "turns, so one worker's warm-up ran inside another's measured copies")
            .runs("turns", turns, runs_by_label(in.results, turns));
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
