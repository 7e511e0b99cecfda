#pragma once
// A payload's own copies (`with w.timed(...)` blocks), per label: how many, whether a device
// tracer saw device copies in them and of which kind, and whether the framework held the GIL
// across its copy calls; and whether the payload checked its bytes.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

struct TimedBlockStats {
    std::string label;
    size_t blocks = 0;  // warm-up and failed included
    size_t warmup = 0;
    size_t failed = 0;            // the block raised: left out of every figure
    size_t traced = 0;            // blocks a device tracer watched (CUDA backend with CUPTI)
    size_t with_device_copy = 0;  // traced blocks with at least one device copy joined
    size_t device_copies = 0;
    // Blocks that returned before their last device copy ended (an asynchronous call, or
    // cudaMemcpy from pageable memory, which returns once the last chunk is staged), and by
    // how much at most.
    size_t returned_early = 0;
    int64_t max_overhang_ns = 0;
    int64_t calls = 0;  // memcpy API calls in traced blocks
    int64_t gil_held_calls = 0;
    std::map<std::string, size_t> kinds{};  // "HtoD pageable->device" -> device copies
};

struct TimedBlocks {
    std::vector<TimedBlockStats> labels;  // in the run's copy_sources order
    // Workers that made timed blocks, and those among them whose bytes the payload checked.
    std::vector<int> workers;
    std::map<int, std::string> verified;
};

TimedBlocks timed_blocks_of(const RunResult& run);
// The report's lines for them (empty when the run has no timed blocks).
std::vector<std::string> timed_block_lines(const TimedBlocks& t);
void to_json(nlohmann::json& j, const TimedBlocks& t);

}  // namespace xfer
