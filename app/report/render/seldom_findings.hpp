#pragma once
// Findings that fewer than half of a label's trials make (of 3 or more trials) say nothing of the
// label a reader compares: the default report counts them in one line, per label and rule, and
// leaves each trial's sentence to --full. A listing stays in the Why block where any label it
// names makes the rule in half of its trials or more.
#include <string>
#include <vector>

#include "report/render/findings_by_label.hpp"
#include "results/run_result.hpp"

namespace xfer {

// One label's count for one rule: the trials that make any finding of the rule.
struct SeldomCount {
    std::string label;
    std::string rule;
    size_t with = 0;
    size_t trials = 0;
};

// The fewest trials a label needs before "fewer than half" is a count and not one trial of two.
inline constexpr size_t kSeldomMinTrials = 3;

// How many distinct trials of `label` make a finding of `listed` (every listing of one rule).
size_t trials_making(const std::vector<ListedFinding>& listed, const Results& results,
                     const std::string& label);

// Whether every label of `l` makes the rule (over `all`, the rule's listings) in fewer than half
// of its kSeldomMinTrials or more trials.
bool seldom(const ListedFinding& l, const std::vector<ListedFinding>& all, const Results& results);

// "'host': calls-wait in 1 of 5 trials, ...; 'host+gil gil=release': ..." (labels in plan order).
std::string seldom_line(const std::vector<SeldomCount>& counts);

}  // namespace xfer
