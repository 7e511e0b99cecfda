#pragma once
// `xferlab compare A B`: the runs of two results files paired by label (the label holds the
// sweep point's values), each pair judged across its trials like a run against its baseline,
// B against A (Google Benchmark's compare.py: the second file is the new one).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// A setting in which the two runs of a pair differ: the ratio then compares unlike runs.
struct SettingDifference {
    std::string setting;  // "host.hostname", "threads.count", "backend used", "transfer.bytes"
    std::string a, b;     // its values, as text ("(none)" where one side lacks it)
};

struct ComparedPair {
    std::string label;
    // Every setting the pair's runs (each side's first trial) differ in: the host (name, CPU),
    // the thread count, the backend used, and every key of their scaling keys (size, direction,
    // backend as written, ...; for results without scaling keys: size, direction, host memory
    // and launcher). Empty when they ran alike.
    std::vector<SettingDifference> differences;
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
    size_t differing_pairs = 0;  // pairs with differences
    double geomean_ratio = 0;    // of the pairs' median ratios (0: none)
};

ResultsComparison compare_results(const Results& a_results, const Analysis& a,
                                  const Results& b_results, const Analysis& b);

// "transfer.bytes 2 GiB in A, 64 MiB in B; threads.count 4 in A, 2 in B": a pair's differences.
std::string differences_text(const ComparedPair& p);

// The terminal text: one row per pair, the runs found on one side only, the summary.
std::string compare_text(const ResultsComparison& c, const std::string& a_name,
                         const std::string& b_name);
nlohmann::json compare_json(const ResultsComparison& c, const std::string& a_name,
                            const std::string& b_name);

}  // namespace xfer
