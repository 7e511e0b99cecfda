// The staging engine's options in results.json (settings/engine_options.hpp): results written
// by an older xferlab read back as they ran, retired keys included, and write back unchanged.
#include <nlohmann/json.hpp>

#include "settings/run_settings.hpp"
#include "support/catch.hpp"

using namespace xfer;
using nlohmann::json;

TEST_CASE("engine options: results that recorded a retired key keep and write it back",
          "[settings]") {
    // A staged run of tools/measure/staged-taper.toml as the H200 recorded it (2026-12-01):
    // [staging] had taper and no dma, streams or wait.
    const json recorded = json::parse(R"({"index": 1, "label": "staged taper",
        "transfer": {"path": "staged"},
        "staging": {"threads": "auto", "chunk": "auto", "chunk_bytes": 0, "buffers": 2,
                    "affinity": "gpu-local", "stores": "auto", "taper": true}})");
    const RunSettings s = recorded.get<RunSettings>();
    CHECK(s.retired == std::map<std::string, json>{{"staging.taper", true}});
    // Recorded as it ran: two buffers per helper; dma, absent, as it ran then: a DMA per chunk.
    CHECK(s.transfer.staging.buffers == 2);
    CHECK(s.transfer.staging.dma == 0);
    CHECK(s.unrecorded.count("staging.dma") == 1);
    CHECK(s.unrecorded.count("staging.populate") == 1);
    const json back = s;
    CHECK(back["staging"]["taper"] == true);
    CHECK_FALSE(back["staging"].contains("dma"));  // unrecorded stays unrecorded
    CHECK(back["staging"]["buffers"] == 2);
}

TEST_CASE("engine options: today's results record every option and no retired one", "[settings]") {
    RunSettings s;
    s.transfer.path = CopyPath::staged;
    const json j = s;
    for (const EngineOptionRow& row : engine_option_rows())
        CHECK(j["staging"].contains(row.name) == row.scenario);
    for (const RetiredOption& r : retired_engine_options())
        CHECK_FALSE(j["staging"].contains(r.name));
    const RunSettings back = j.get<RunSettings>();
    CHECK(back.transfer.staging == EngineOptions{});
    CHECK(back.retired.empty());
}
