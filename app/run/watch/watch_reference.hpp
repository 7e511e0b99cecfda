#pragma once
// The copies xferlab times itself after a watched program ends, on each device the program
// copied to or from, so that the report can set the program's copies against this machine's
// link: a page-locked reference (one host thread, pinned memory, the median size of the
// program's copies there, at most 1 GiB), and with --calibrate what xferlab.copy (the staging
// engine, pageable memory, as many threads as copied there) gives for that size. Written as a
// scenario (watch/reference.toml in the results folder, so it can be run again by hand) and
// run by the plan runner like any other.
#include <filesystem>
#include <string>
#include <vector>

#include "report/analysis/watched.hpp"
#include "run/config.hpp"
#include "run/plan/plan_runner.hpp"
#include "scenario/scenario.hpp"
#include "watch/watched_run.hpp"

namespace xfer {

// The reference runs' labels start with kReferenceLabel and kCalibrateLabel
// (report/analysis/watched.hpp, where the report finds them).
inline constexpr uint64_t kReferenceMaxBytes = uint64_t(1) << 30;

// The reference scenario's text for the program's device uses ("" when it used none).
std::string reference_scenario_text(const std::vector<watch::DeviceUse>& uses, bool calibrate);

struct ReferencePlan {
    nlohmann::json resolved;  // the resolved scenario (null when none)
    std::vector<Run> runs;    // numbered from `first_index` on
    std::string skipped;      // why there is none ("" when there are runs, or nothing to time)
};

// Writes `dir`/reference.toml, loads it and preflights it on `runner`. A plan this machine
// cannot run (no CUDA here, too little memory) gives no runs and says why in `skipped`.
ReferencePlan plan_references(const std::vector<watch::DeviceUse>& uses, bool calibrate,
                              const std::filesystem::path& dir, const Config& config,
                              PlanRunner& runner, int first_index);

}  // namespace xfer
