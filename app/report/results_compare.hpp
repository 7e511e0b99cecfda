#pragma once
// `xferlab compare A B`: the runs of two results files paired by label (the label holds the
// sweep point's values), each pair judged across its trials like a run against its baseline,
// B against A (Google Benchmark's compare.py: the second file is the new one).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct ComparedPair {
    std::string label;
    double a_median_Bps = 0, b_median_Bps = 0;
    size_t a_trials = 0, b_trials = 0;
    std::optional<TrialComparison> comparison;  // nullopt when a side measured nothing
};

struct ResultsComparison {
    std::vector<ComparedPair> pairs;     // in A's order
    std::vector<std::string> only_in_a;  // labels
    std::vector<std::string> only_in_b;
    std::map<TrialComparison::Finding, size_t> findings;  // pairs by finding
    size_t not_measured = 0;
    double geomean_ratio = 0;  // of the pairs' median ratios (0: none)
};

ResultsComparison compare_results(const Analysis& a, const Analysis& b);

// The terminal text: one row per pair, the runs found on one side only, the summary.
std::string compare_text(const ResultsComparison& c, const std::string& a_name,
                         const std::string& b_name);
nlohmann::json compare_json(const ResultsComparison& c, const std::string& a_name,
                            const std::string& b_name);

}  // namespace xfer
