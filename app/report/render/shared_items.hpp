#pragma once
// What the full table says about a run in words rather than figures: its payload, its thread
// attribute differences from the baseline, its findings and its notes. Runs of one plan often
// say the same thing (the same payload, "python_thread: no vs yes", the GIL finding): the table
// can print such an item once, naming the runs it applies to, instead of under each run.
#include <string>
#include <tuple>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct RunItem {
    enum class Kind { payload, thread_difference, finding, note };  // in the order printed
    Kind kind = Kind::note;
    std::string text;
    // A thread difference: the run whose threads it is against (each trial is compared with
    // the baseline's run of its own trial), so that runs compared with different runs never
    // share it. -1 for the other kinds.
    int baseline = -1;

    bool operator<(const RunItem& o) const {
        return std::tie(kind, baseline, text) < std::tie(o.kind, o.baseline, o.text);
    }
    bool operator==(const RunItem& o) const {
        return kind == o.kind && baseline == o.baseline && text == o.text;
    }
};

// A run's items in print order. Thread differences are there only when the run is compared
// with a baseline.
std::vector<RunItem> run_items(const RunResult& run, const RunAnalysis& a);

struct SharedItems {
    // Notes that every run has (2+ runs): printed once under the header.
    std::vector<std::string> every_run_notes;
    // Items that 2+ runs have (the notes above excepted), grouped by the runs that have them:
    // run indices ascending; groups in the order of their runs.
    struct Group {
        std::vector<int> runs;
        std::vector<RunItem> items;
    };
    std::vector<Group> groups;
};

SharedItems shared_items(const Results& results, const Analysis& analysis);

}  // namespace xfer
