#include "report/render/table_concise.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain/explanation_rules.hpp"
#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"

namespace xfer {

namespace {

std::string whose(const std::vector<int>& runs, size_t all) {
    if (runs.size() == all && all > 1) return "every run";
    return fmt::format("{} {}", runs.size() == 1 ? "run" : "runs", fmt::join(runs, ", "));
}

// The texts of every run (`texts_of(i)` for results.runs[i]), each with the runs (their
// indices) that have it, in first-seen order.
template <class TextsOf>
std::vector<std::pair<std::string, std::vector<int>>> grouped(const Results& results,
                                                              TextsOf texts_of) {
    std::vector<std::pair<std::string, std::vector<int>>> out;
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const int index = results.runs[i].position.index;
        for (const std::string& text : texts_of(i)) {
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const auto& g) { return g.first == text; });
            if (it == out.end()) it = out.insert(out.end(), {text, {}});
            if (it->second.empty() || it->second.back() != index) it->second.push_back(index);
        }
    }
    return out;
}

}  // namespace

std::string notes_block(const Results& results) {
    std::string out;
    const auto notes = grouped(results, [&](size_t i) { return results.runs[i].notes; });
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
    std::string out;
    for (const ExplanationRule& rule : explanation_rules()) {
        if (reading_only && !rule.changes_reading) continue;
        const auto said = grouped(results, [&](size_t i) {
            std::vector<std::string> texts;
            for (const Finding& f : analysis.runs[i].findings)
                if (f.rule == rule.text.id) texts.push_back(f.text());
            return texts;
        });
        for (const auto& [text, runs] : said) {
            out += wrap(whose(runs, results.runs.size()) + ":", kTableWidth, "  ", "    ");
            out += wrap(text, kTableWidth, "    why: ", "      ");
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
