#pragma once
// Where a run sits in its plan. Not something the run ran with (that is RunSettings, equal for
// a run's trials and compared key by key), but what names it and groups it with other runs of
// the plan: Run (scenario/) and RunResult hold it beside their RunSettings. results.json
// writes it inside a run's "settings" (serialize.cpp).
#include <map>
#include <string>

namespace xfer {

struct RunPosition {
    int index = 0;      // in the plan as it ran, trials included: the run's number
    std::string label;  // e.g. "python gil=release threads.count=4"; a run's trials share it
    int trial = 1;      // the run's trial (scenario.trials), 1-based
    // Its place in the plan of one trial ([[run]] x [sweep] order), equal for its trials:
    // reports list runs in this order and take the first at a sweep point as its baseline.
    // results.json's "position".
    int slot = 0;
    // The [[run]]'s label without the sweep point's values: what scenario.baseline names.
    std::string base_label;
    std::map<std::string, std::string> sweep_point;  // key -> value of this sweep point
    // Runs equal but for threads.count share it: scaling is computed against the 1-thread run
    // with the same key. "" in results written before scaling keys.
    std::string scaling_key;
    // False for results written before trials, which record neither trial, position nor
    // base_label: 1, the index and "" stand in, and writing them back leaves them out again.
    bool trials_recorded = true;

    bool operator==(const RunPosition&) const = default;
};

}  // namespace xfer
