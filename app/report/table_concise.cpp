#include "report/table_concise.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/explanation_rules.hpp"
#include "report/table_run_section.hpp"
#include "report/text_table.hpp"

namespace xfer {

namespace {

std::string whose(const std::vector<int>& runs, size_t all) {
    if (runs.size() == all && all > 1) return "every run";
    return fmt::format("{} {}", runs.size() == 1 ? "run" : "runs", fmt::join(runs, ", "));
}

// The texts of every run, each with the runs (their indices) that have it, in first-seen order.
template <class TextsOf>
std::vector<std::pair<std::string, std::vector<int>>> grouped(const Results& results,
                                                              TextsOf texts_of) {
    std::vector<std::pair<std::string, std::vector<int>>> out;
    for (const RunResult& r : results.runs)
        for (const std::string& text : texts_of(r)) {
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const auto& g) { return g.first == text; });
            if (it == out.end()) it = out.insert(out.end(), {text, {}});
            if (it->second.empty() || it->second.back() != r.index) it->second.push_back(r.index);
        }
    return out;
}

}  // namespace

std::string notes_block(const Results& results) {
    std::string out;
    const auto notes = grouped(results, [](const RunResult& r) { return r.notes; });
    for (const auto& [text, runs] : notes) {
        const std::string head = fmt::format("note ({}): ", whose(runs, results.runs.size()));
        // A long list of runs on a line of its own, the note under it.
        if (head.size() <= kTableWidth / 4)
            out += wrap(text, kTableWidth, head, "  ");
        else
            out += wrap(head, kTableWidth, "", "  ") + wrap(text, kTableWidth, "  ", "  ");
    }
    return out;
}

std::string findings_block(const Results& results, const Analysis& analysis, bool reading_only) {
    // rule id -> the runs it holds for, and the first run's sentence; in rule order.
    struct Finding {
        std::vector<int> runs;
        std::vector<std::string> texts;  // the first run's findings of this rule
        bool same = true;                // every run says them word for word
    };
    std::map<std::string, Finding> by_rule;
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunAnalysis& a = analysis.runs[i];
        std::map<std::string, std::vector<std::string>> mine;
        for (size_t k = 0; k < a.explanations.size() && k < a.explanation_rules.size(); ++k)
            mine[a.explanation_rules[k]].push_back(a.explanations[k]);
        for (auto& [rule, texts] : mine) {
            Finding& f = by_rule[rule];
            if (f.runs.empty())
                f.texts = texts;
            else if (texts != f.texts)
                f.same = false;
            f.runs.push_back(results.runs[i].index);
        }
    }
    std::string out;
    for (const ExplanationRule& rule : explanation_rules()) {
        const auto it = by_rule.find(rule.text.id);
        if (it == by_rule.end() || (reading_only && !rule.changes_reading)) continue;
        const Finding& f = it->second;
        std::string head = whose(f.runs, results.runs.size());
        if (!f.same)
            head += fmt::format(" (as run {} says it; each run's own figures: --full)", f.runs[0]);
        out += wrap(head + ":", kTableWidth, "  ", "    ");
        for (const std::string& text : f.texts)
            out += wrap(text, kTableWidth, "    why: ", "      ");
    }
    return out.empty() ? "" : "\nWhy (each finding once, with the runs it holds for)\n" + out;
}

std::string error_sections(const Results& results) {
    std::string out;
    for (const RunResult& r : results.runs) {
        if (r.errors.empty()) continue;
        out += "\n" + wrap(fmt::format("Run {}: {} ({}, {})", r.index, r.label, r.launcher,
                                       to_string(r.status)),
                           kTableWidth, "", "  ");
        for (const std::string& e : r.errors) out += error_lines(e);
    }
    return out;
}

}  // namespace xfer
