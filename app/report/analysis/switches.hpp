#pragma once
// Switches: two runs of one plan that differ in one setting alone, so that an effect present in
// one and absent in the other can be put down to that setting (docs/reading-reports.md,
// "Explanations"). Runs are compared on their typed settings (RunResult::settings) without
// what names or places them and without the thread count: what their scaling key holds.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// The settings that tell runs of a plan apart: `s` without its timeout, overrides and thread
// count (where a run sits in the plan is not in RunSettings: RunResult::position).
RunSettings identifying_settings(const RunSettings& s);

// The dotted keys where the scaling keys of `a` and `b` differ, thread count aside (it is not
// in them); nullopt when either has no scaling key (results from before they were written).
std::optional<std::set<std::string>> scaling_key_differences(const RunResult& a,
                                                             const RunResult& b);

// Whether `a` and `b`, with equal thread counts, differ in the setting `field` reaches (a
// callable from RunSettings& to one of its fields: `[](RunSettings& s) -> auto& { return
// s.gil; }`) and in no other. Never for runs without a scaling key (results from before it).
template <class Field>
bool differ_only_in(const RunResult& a, const RunResult& b, Field field) {
    if (a.settings.threads.count != b.settings.threads.count || a.position.scaling_key.empty() ||
        b.position.scaling_key.empty())
        return false;
    RunSettings sa = identifying_settings(a.settings), sb = identifying_settings(b.settings);
    if (field(sa) == field(sb)) return false;
    field(sa) = field(sb);
    return sa == sb;
}

// Positions in results.runs of the runs of the same trial as results.runs[run] that differ from
// it in `field` alone.
template <class Field>
std::vector<size_t> switched_runs(const Results& results, size_t run, Field field) {
    std::vector<size_t> out;
    const RunResult& r = results.runs[run];
    for (size_t i = 0; i < results.runs.size(); ++i)
        if (i != run && results.runs[i].position.trial == r.position.trial &&
            differ_only_in(r, results.runs[i], field))
            out.push_back(i);
    return out;
}

// The switches the explanations name.
inline GilPolicy& switch_gil(RunSettings& s) { return s.gil; }
inline BetweenSpec& switch_between(RunSettings& s) { return s.threads.between; }
inline ContextKind& switch_context(RunSettings& s) { return s.transfer.context; }

}  // namespace xfer
