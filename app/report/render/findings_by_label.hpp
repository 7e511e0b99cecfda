#pragma once
// A rule's findings gathered by what a reader compares: the runs of the plan (labels), each with
// the trials that make the finding, instead of trial by trial. Trials of one label that say the
// same words list together, each figure as the range that holds every listed trial's own
// figure ("13.2-21.3 ms"); labels whose gathered sentences are the same list together too. A
// listed trial's own sentence (Finding::text()) is always the listed one with each range
// narrowed to its own figure, so a line that names several runs is each run's own sentence.
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// One label's share of a listing: how many of its trials make the finding.
struct LabelTrials {
    std::string label;
    size_t with = 0;    // its trials that make the finding as listed
    size_t trials = 0;  // its trials in the results
};

struct ListedFinding {
    std::string text;         // the sentence, figures as ranges where trials differ
    std::vector<int> runs;    // plan numbers of every trial that says it, ascending
    std::vector<LabelTrials> labels;  // in plan order
};

// The findings of rule `rule_id` of every run, gathered by label. In rule order of first
// appearance: labels in plan order, a label's sentences in the order its trials first say them.
std::vector<ListedFinding> findings_by_label(const Results& results, const Analysis& analysis,
                                             const std::string& rule_id);

// The printed figures of several trials as one: the text where all are equal, else the range
// from the smallest to the largest ("9-20x", "1.77-4.11 us"; "950 us to 1.2 ms" where the
// printed units differ).
std::string figure_range(const std::vector<const FindingField*>& fields);

// The head of a listing: "runs 3, 8, 13 (as run 'python gil=hold' in every trial)", "every
// run (every trial)", "run 2 (as run 'host')" where the plan has one trial.
std::string listing_head(const ListedFinding& listed, const Results& results);

}  // namespace xfer
