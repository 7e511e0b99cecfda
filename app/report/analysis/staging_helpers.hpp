#pragma once
// What a staged run's helper threads spent their busy time on (HelperThread::work): copying on
// the host, starting DMAs, waiting for DMAs, taking work. The split says which side limits a
// staged copy: helpers that mostly wait are held back by the DMA, helpers that mostly copy by
// their own copy rate (and the memory bandwidth they share).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

struct StagingHelperStats {
    std::string launcher;  // "staging (device 0)"
    size_t helpers = 0;    // helpers that started at least one chunk
    size_t processes = 0;  // processes they ran in (one engine each: process and MPI launchers)
    int64_t busy_ns = 0;   // summed busy spans (at least the parts below)
    HelperWork work{};     // summed over the helpers
};

// One entry per engine name (device), helpers without work left out.
std::vector<StagingHelperStats> staging_helpers_of(const RunResult& run);
std::vector<std::string> staging_helper_lines(const std::vector<StagingHelperStats>& s);
void to_json(nlohmann::json& j, const StagingHelperStats& s);

}  // namespace xfer
