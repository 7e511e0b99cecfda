#pragma once
// Switches: two runs of one plan that differ in one setting alone, so that an effect present in
// one and absent in the other can be put down to that setting (docs/reading-reports.md,
// "Explanations"). A run's scaling_key holds every setting but the thread count and the label.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// The settings `a` and `b` differ in, as dotted keys of their scaling keys ("gil",
// "threads.between", "transfer.context"); a key present in one only counts as different.
// nullopt when either has no scaling key or they differ in thread count.
std::optional<std::set<std::string>> setting_differences(const RunResult& a, const RunResult& b);

// The dotted keys where the scaling keys of `a` and `b` differ, thread count aside (it is not
// in them); nullopt when either has no scaling key (results from before they were written).
std::optional<std::set<std::string>> scaling_key_differences(const RunResult& a,
                                                             const RunResult& b);

// True when every difference between `a` and `b` is `key` or under it ("threads.between" also
// covers "threads.between_sleep_ns"), and there is one.
bool differ_only_in(const RunResult& a, const RunResult& b, const std::string& key);

// Positions in results.runs of the runs of the same trial as results.runs[run] that differ from
// it in `key` alone.
std::vector<size_t> switched_runs(const Results& results, size_t run, const std::string& key);

// The value of `key` (dotted, e.g. "threads.between") in the run's settings, as text ("" when
// absent): for naming the two sides of a switch.
std::string setting_text(const RunResult& run, const std::string& key);

}  // namespace xfer
