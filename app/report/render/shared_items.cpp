#include "report/render/shared_items.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace xfer {

std::vector<RunItem> run_items(const RunResult& run, const RunAnalysis& a) {
    using Kind = RunItem::Kind;
    std::vector<RunItem> items;
    if (run.payload) {
        items.push_back({Kind::payload,
                         fmt::format("payload {}: {} (found in {}), sha256 {}", run.payload->name,
                                     run.payload->path, run.payload->folder, run.payload->sha256)});
    }
    if (a.vs_baseline) {
        for (const auto& d : a.thread_differences)
            items.push_back({Kind::thread_difference, d, a.vs_baseline->baseline_run});
    }
    for (const Finding& f : a.findings) items.push_back({Kind::finding, f.text()});
    for (const auto& n : run.notes) items.push_back({Kind::note, n});
    return items;
}

SharedItems shared_items(const Results& results, const Analysis& analysis) {
    SharedItems shared;
    if (results.runs.size() < 2) return shared;
    // Which runs have each item (a run that says a thing twice counts once).
    std::map<RunItem, std::vector<int>> runs_of;
    for (size_t i = 0; i < results.runs.size(); ++i) {
        for (auto& item : run_items(results.runs[i], analysis.runs[i])) {
            auto& runs = runs_of[item];
            if (runs.empty() || runs.back() != results.runs[i].position.index)
                runs.push_back(results.runs[i].position.index);
        }
    }
    std::map<std::vector<int>, std::vector<RunItem>> by_runs;
    for (const auto& [item, runs] : runs_of) {
        if (runs.size() < 2) continue;
        if (item.kind == RunItem::Kind::note && runs.size() == results.runs.size()) {
            shared.every_run_notes.push_back(item.text);
        } else {
            by_runs[runs].push_back(item);  // the map keeps them in print order
        }
    }
    for (auto& [runs, items] : by_runs) shared.groups.push_back({runs, std::move(items)});
    // Groups that start with an earlier run first; of two that start alike, the longer.
    std::stable_sort(shared.groups.begin(), shared.groups.end(), [](const auto& x, const auto& y) {
        if (x.runs.front() != y.runs.front()) return x.runs.front() < y.runs.front();
        return x.runs.size() > y.runs.size();
    });
    return shared;
}

}  // namespace xfer
