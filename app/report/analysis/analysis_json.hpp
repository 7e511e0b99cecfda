#pragma once
// JSON form of the analysis, written next to each run in results.json. Write-only: the analysis
// is always recomputed from the records, never read back.
#include <nlohmann/json.hpp>

#include "report/analysis/analysis.hpp"

namespace xfer {

void to_json(nlohmann::json& j, const Distribution& d);
void to_json(nlohmann::json& j, const Comparison& c);
void to_json(nlohmann::json& j, const WorkerStats& w);
void to_json(nlohmann::json& j, const DeviceStats& d);
void to_json(nlohmann::json& j, const HandoffStats& h);
void to_json(nlohmann::json& j, const Finding& f);
void to_json(nlohmann::json& j, const RunAnalysis& a);
void to_json(nlohmann::json& j, const TrialComparison& c);
void to_json(nlohmann::json& j, const TrialGroup& g);

}  // namespace xfer
