#include "report/render/seldom_findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace xfer {

size_t trials_making(const std::vector<ListedFinding>& listed, const Results& results,
                     const std::string& label) {
    std::set<int> runs;  // a trial that makes the rule twice (two devices) counts once
    for (const ListedFinding& l : listed)
        for (int index : l.runs)
            for (const RunResult& r : results.runs)
                if (r.position.index == index && r.position.label == label) runs.insert(index);
    return runs.size();
}

bool seldom(const ListedFinding& l, const std::vector<ListedFinding>& all, const Results& results) {
    return std::all_of(l.labels.begin(), l.labels.end(), [&](const LabelTrials& t) {
        return t.trials >= kSeldomMinTrials && 2 * trials_making(all, results, t.label) < t.trials;
    });
}

std::string seldom_line(const std::vector<SeldomCount>& counts) {
    std::vector<std::string> labels, parts;
    for (const SeldomCount& c : counts)
        if (std::find(labels.begin(), labels.end(), c.label) == labels.end())
            labels.push_back(c.label);
    for (const std::string& label : labels) {
        std::vector<std::string> rules;
        for (const SeldomCount& c : counts)
            if (c.label == label)
                rules.push_back(fmt::format("{} in {} of {} trials", c.rule, c.with, c.trials));
        parts.push_back(fmt::format("'{}': {}", label, fmt::join(rules, ", ")));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace xfer
