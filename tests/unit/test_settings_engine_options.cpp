// The staging engine's options in results.json (settings/engine_options.hpp): results written
// by an older xferlab read back as they ran, retired keys included, and write back unchanged.
#include <nlohmann/json.hpp>

#include "settings/run_settings.hpp"
#include "support/catch.hpp"

using namespace xfer;
using nlohmann::json;

TEST_CASE("engine options: results that recorded a retired key keep and write it back",
          "[settings]") {
    // A staged run of staged-taper.toml (tools/measure/, removed with taper in issue #45) as the
    // H200 recorded it on 2026-12-01 (its results: tests/fixtures/measured, h200-cure2.staged-
    // taper): [staging] had taper and no dma, streams or wait.
    const json recorded = json::parse(R"({"index": 1, "label": "staged taper",
        "transfer": {"path": "staged"},
        "staging": {"threads": "auto", "chunk": "auto", "chunk_bytes": 0, "buffers": 2,
                    "affinity": "gpu-local", "stores": "auto", "taper": true}})");
    const RunSettings s = recorded.get<RunSettings>();
    CHECK(s.retired ==
          std::map<std::string, json>{{"staging.taper", true}, {"staging.stores", "auto"}});
    // Recorded as it ran: two buffers per helper; dma, absent, as it ran then: a DMA per chunk.
    CHECK(s.transfer.staging.buffers == 2);
    CHECK(s.transfer.staging.dma == 0);
    CHECK(s.unrecorded.count("staging.dma") == 1);
    CHECK(s.unrecorded.count("staging.mapped_files") == 1);
    // Absent, as it ran then: from the mapping ("read" is the default since issue #58).
    CHECK(s.transfer.staging.mapped_files == StagingMappedFiles::copy);
    // And "block" for the engine's lock (a plain mutex before staging.lock).
    CHECK(s.unrecorded.count("staging.lock") == 1);
    CHECK(s.transfer.staging.lock == StagingLock::block);
    const json back = s;
    CHECK(back["staging"]["taper"] == true);
    CHECK(back["staging"]["stores"] == "auto");
    CHECK_FALSE(back["staging"].contains("dma"));  // unrecorded stays unrecorded
    CHECK(back["staging"]["buffers"] == 2);
}

TEST_CASE("engine options: results of the switches retired in issue #55 read back as they ran",
          "[settings]") {
    // A staged run as pass 1 of the engine benchmark recorded it (2026-12-04, docs/results/
    // 2026-12-04-h200-engine/pass1/cure-processes.results.json: stores and populate among the
    // options), one of them set away from its default.
    const json recorded = json::parse(R"({"transfer": {"path": "staged"},
        "staging": {"threads": 3, "chunk": "auto", "chunk_bytes": 0, "buffers": "auto",
                    "dma": "auto", "dma_bytes": 18446744073709551615, "affinity": "gpu-local",
                    "stores": "streaming", "streams": "one", "wait": "spin",
                    "populate": "ahead", "mapped_files": "copy"}})");
    const RunSettings s = recorded.get<RunSettings>();
    CHECK(s.retired == std::map<std::string, json>{{"staging.populate", "ahead"},
                                                   {"staging.stores", "streaming"}});
    CHECK(s.transfer.staging.threads == 3);
    const json back = s;
    CHECK(back["staging"] == recorded["staging"]);
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
