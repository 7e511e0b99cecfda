#include "report/render/table_concise.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain/explanation_rules.hpp"
#include "report/render/findings_by_label.hpp"
#include "report/render/machine_line.hpp"
#include "report/render/seldom_findings.hpp"
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

// Counts ordered by their label's first run in the plan (rule order within a label).
std::vector<SeldomCount> in_plan_order(std::vector<SeldomCount> counts, const Results& results) {
    auto first = [&](const std::string& label) {
        for (size_t i = 0; i < results.runs.size(); ++i)
            if (results.runs[i].position.label == label) return i;
        return results.runs.size();
    };
    std::stable_sort(counts.begin(), counts.end(), [&](const SeldomCount& a, const SeldomCount& b) {
        return first(a.label) < first(b.label);
    });
    return counts;
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
    // Each sentence once per run of the plan (label), with the trials that say it: trials whose
    // sentences differ only in figures list together, each figure as the range of theirs, and
    // labels whose sentences are then the same list together. In rule order, then in the order
    // each is first said. Findings that change how a whole run reads (a shared machine) are one
    // line of their own (machine_line).
    // A finding fewer than half of a label's trials make is counted in one line (seldom_findings).
    std::string out, last_head;
    std::vector<SeldomCount> seldom_counts;
    for (const ExplanationRule& rule : explanation_rules()) {
        if (rule.changes_reading || rule.full_only || rule.in_table || !rule.per_run ||
            reading_only)
            continue;
        const auto listed = findings_by_label(results, analysis, rule.text.id);
        for (const ListedFinding& l : listed) {
            if (seldom(l, listed, results)) {
                for (const LabelTrials& t : l.labels)
                    if (std::none_of(seldom_counts.begin(), seldom_counts.end(), [&](auto& c) {
                            return c.label == t.label && c.rule == rule.text.id;
                        }))
                        seldom_counts.push_back({t.label, rule.text.id,
                                                 trials_making(listed, results, t.label),
                                                 t.trials});
                continue;
            }
            // Sentences of the same runs in a row share their head.
            const std::string head = listing_head(l, results);
            if (head != last_head) out += wrap(head + ":", kTableWidth, "  ", "    ");
            last_head = head;
            out += wrap(l.text, kTableWidth, "    why: ", "      ");
        }
    }
    if (!seldom_counts.empty())
        out += wrap("in fewer than half of a label's trials (the sentences: --full; the kinds: xferlab "
                    "help explanations): " + seldom_line(in_plan_order(seldom_counts, results)),
                    kTableWidth, "  ", "    ");
    std::string text = out.empty() ? "" : "\nWhy (each finding once per run of the plan, with the trials that make it)\n" + out;
    return text + machine_line(results, analysis);
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
