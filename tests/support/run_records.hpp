#pragma once
// What a run of results.json holds, as the integration tests count it.
#include <map>
#include <nlohmann/json.hpp>

namespace xfer::test {

// worker -> its measured copies (records that are not warm-ups), of a run of results.json.
inline std::map<int, int> measured_per_worker(const nlohmann::json& run) {
    std::map<int, int> out;
    for (const auto& r : run["records"])
        if (!r["warmup"].get<bool>()) out[r["worker"].get<int>()]++;
    return out;
}

}  // namespace xfer::test
