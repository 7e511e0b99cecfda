#include "report/render/table_concise.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/explain/explanation_rules.hpp"
#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"

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
            if (it->second.empty() || it->second.back() != r.position.index)
                it->second.push_back(r.position.index);
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
    // Each sentence once, with the runs that say exactly it, in rule order, then in the order
    // each is first said. Runs are listed together only where their own sentences are the same
    // words and figures: a line that names several runs is each run's own sentence.
    struct Said {
        std::string text;
        std::vector<int> runs;
    };
    std::map<std::string, std::vector<std::string>> keys_of_rule;  // in first-seen order
    std::map<std::string, Said> said;
    for (size_t i = 0; i < results.runs.size(); ++i)
        for (const Finding& f : analysis.runs[i].findings) {
            std::string text = f.text();
            const std::string key = f.rule + '\n' + text;
            Said& s = said[key];
            if (s.runs.empty()) {
                keys_of_rule[f.rule].push_back(key);
                s.text = std::move(text);
            }
            if (s.runs.empty() || s.runs.back() != results.runs[i].position.index)
                s.runs.push_back(results.runs[i].position.index);
        }
    std::string out;
    for (const ExplanationRule& rule : explanation_rules()) {
        if (reading_only && !rule.changes_reading) continue;
        const auto keys = keys_of_rule.find(rule.text.id);
        if (keys == keys_of_rule.end()) continue;
        for (const std::string& key : keys->second) {
            const Said& s = said.at(key);
            out += wrap(whose(s.runs, results.runs.size()) + ":", kTableWidth, "  ", "    ");
            out += wrap(s.text, kTableWidth, "    why: ", "      ");
        }
    }
    return out.empty() ? "" : "\nWhy (each finding once, with the runs that make it)\n" + out;
}

std::string error_sections(const Results& results) {
    std::string out;
    for (const RunResult& r : results.runs) {
        if (r.errors.empty()) continue;
        out += "\n" + wrap(fmt::format("Run {}: {} ({}, {})", r.position.index, r.position.label,
                                       r.settings.launcher, to_string(r.status)),
                           kTableWidth, "", "  ");
        for (const std::string& e : r.errors) out += error_lines(e);
    }
    return out;
}

}  // namespace xfer
