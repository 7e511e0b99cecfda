#include "report/render/findings_by_label.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace xfer {

namespace {

// A printed figure split around its one number: "13.3 ms" -> {"", "13.3", " ms"}. Texts with
// no number or more than one ("[0.8x, 1.1x]") are not split: they list together only where
// equal.
struct PrintedNumber {
    std::string before, number, after;
    double value = 0;
};

std::optional<PrintedNumber> one_number(const std::string& text) {
    size_t start = std::string::npos, end = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
        if (start != std::string::npos) return std::nullopt;  // a second number
        start = i;
        end = i;
        while (end < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[end])) ||
                (text[end] == '.' && end + 1 < text.size() &&
                 std::isdigit(static_cast<unsigned char>(text[end + 1])))))
            ++end;
        i = end - 1;
    }
    if (start == std::string::npos) return std::nullopt;
    // A minus sign directly before the digits is the number's.
    if (start > 0 && text[start - 1] == '-' &&
        (start == 1 || !std::isalnum(static_cast<unsigned char>(text[start - 2])))) {
        // "+-6%" keeps its "+-" as text: the number is 6.
        if (start < 2 || text[start - 2] != '+') --start;
    }
    PrintedNumber p{text.substr(0, start), text.substr(start, end - start), text.substr(end)};
    p.value = std::strtod(p.number.c_str(), nullptr);
    return p;
}

// What must be equal for two trials' findings to list together: the shape, every claim and
// runs text, and each figure's text with its number left out.
std::string listing_key(const Finding& f) {
    std::string key = f.shape;
    for (const FindingField& field : f.fields) {
        key += '\x1f';
        if (field.kind != FindingField::Kind::figure) {
            key += field.text;
        } else if (const auto p = one_number(field.text)) {
            key += p->before + '\x1e' + p->after;
        } else {
            key += field.text;
        }
    }
    return key;
}

}  // namespace

std::string figure_range(const std::vector<const FindingField*>& fields) {
    const std::string& first = fields.front()->text;
    const bool equal = std::all_of(fields.begin(), fields.end(),
                                   [&](const FindingField* f) { return f->text == first; });
    if (equal) return first;
    // The smallest and largest by value, each as printed.
    const FindingField *lo = fields.front(), *hi = fields.front();
    for (const FindingField* f : fields) {
        if (f->value < lo->value) lo = f;
        if (f->value > hi->value) hi = f;
    }
    const auto a = one_number(lo->text), b = one_number(hi->text);
    if (!a || !b || a->before != b->before || a->after != b->after)
        return lo->text + " to " + hi->text;  // units (or shapes) that differ: both whole
    // A hyphen reads as a minus after "+-" or before a negative number.
    const bool words = (!a->before.empty() && a->before.back() == '-') || a->value < 0;
    return a->before + a->number + (words ? " to " : "-") + b->number + a->after;
}

namespace {

// One label's trials' findings that list together: the first as the template, the others'
// fields beside it.
struct Gathered {
    std::string key;
    std::vector<const Finding*> findings;
    std::vector<int> runs;  // plan numbers
};

std::string gathered_text(const Gathered& g) {
    Finding merged = *g.findings.front();
    for (size_t k = 0; k < merged.fields.size(); ++k) {
        if (merged.fields[k].kind != FindingField::Kind::figure) continue;
        std::vector<const FindingField*> same;
        for (const Finding* f : g.findings) same.push_back(&f->fields[k]);
        merged.fields[k].text = figure_range(same);
    }
    return merged.text();
}

// The trials of each label: positions in results.runs, grouped as the analysis grouped them.
std::vector<std::vector<int>> label_trials(const Results& results, const Analysis& analysis) {
    std::vector<std::vector<int>> out;
    std::vector<bool> seen(results.runs.size(), false);
    for (const TrialGroup& g : analysis.groups) {
        out.push_back(g.runs);
        for (int i : g.runs) seen[size_t(i)] = true;
    }
    for (size_t i = 0; i < results.runs.size(); ++i)
        if (!seen[i]) out.push_back({int(i)});
    return out;
}

}  // namespace

std::vector<ListedFinding> findings_by_label(const Results& results, const Analysis& analysis,
                                             const std::string& rule_id) {
    std::vector<ListedFinding> out;
    for (const std::vector<int>& trials : label_trials(results, analysis)) {
        std::vector<Gathered> gathered;
        for (int i : trials) {
            const int index = results.runs[size_t(i)].position.index;
            for (const Finding& f : analysis.runs[size_t(i)].findings) {
                if (f.rule != rule_id) continue;
                const std::string key = listing_key(f);
                auto g = std::find_if(gathered.begin(), gathered.end(),
                                      [&](const Gathered& x) { return x.key == key; });
                if (g == gathered.end()) g = gathered.insert(gathered.end(), {key, {}, {}});
                // A trial that says it twice (two devices alike) is listed once.
                if (!g->runs.empty() && g->runs.back() == index) continue;
                g->findings.push_back(&f);
                g->runs.push_back(index);
            }
        }
        const std::string& label = results.runs[size_t(trials.front())].position.label;
        for (const Gathered& g : gathered) {
            const std::string text = gathered_text(g);
            const LabelTrials share{label, g.runs.size(), trials.size()};
            auto same = std::find_if(out.begin(), out.end(),
                                     [&](const ListedFinding& l) { return l.text == text; });
            if (same == out.end()) {
                out.push_back({text, g.runs, {share}});
                continue;
            }
            same->runs.insert(same->runs.end(), g.runs.begin(), g.runs.end());
            std::sort(same->runs.begin(), same->runs.end());
            same->labels.push_back(share);
        }
    }
    return out;
}

std::string listing_head(const ListedFinding& listed, const Results& results) {
    size_t most_trials = 0;
    bool every_trial = true;
    for (const LabelTrials& l : listed.labels) {
        most_trials = std::max(most_trials, l.trials);
        every_trial &= l.with == l.trials;
    }
    const bool trials = most_trials > 1;
    if (listed.runs.size() == results.runs.size() && results.runs.size() > 1)
        return trials ? "every run (every trial)" : "every run";
    std::vector<std::string> labels;
    for (const LabelTrials& l : listed.labels) {
        std::string s = "'" + l.label + "'";
        if (trials && !every_trial) s += fmt::format(" in {} of {} trials", l.with, l.trials);
        labels.push_back(std::move(s));
    }
    std::string as = fmt::format("as run{} {}", labels.size() == 1 ? "" : "s",
                                 fmt::join(labels, ", "));
    if (trials && every_trial) as += labels.size() == 1 ? " in every trial" : ", every trial";
    return fmt::format("{} {} ({})", listed.runs.size() == 1 ? "run" : "runs",
                       fmt::join(listed.runs, ", "), as);
}

}  // namespace xfer
