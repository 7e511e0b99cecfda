#pragma once
// The staging engine's options: one EngineOptions for a scenario's [staging] table and for
// xferlab.Engine(...), with one set of defaults (the Python module's, measured on H200:
// docs/performance.md), resolved by one function (engine/engine_resolve.hpp). Each option is
// one row of engine_option_rows(): its name, its field's parse and recorded form, its doc. The
// [staging] keys (settings/setting_keys.cpp) and Engine's keyword arguments (module/bindings.cpp)
// are made from the rows, so a new option is one field, one row, its behaviour and its test.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "settings/enums.hpp"
#include "settings/messages.hpp"

namespace xfer {

// EngineOptions::dma: "auto", kEngineDefaults.chunks_per_dma chunks filled by the helpers
// together (settings/engine_defaults.hpp).
constexpr uint64_t kEngineDmaAuto = ~uint64_t(0);
// EngineOptions::direct_below: "auto", each direction its own threshold (engine_resolve.hpp).
constexpr uint64_t kDirectBelowAuto = ~uint64_t(0);

struct EngineOptions {
    int threads = 0;                // helper threads; 0: "auto"
    uint64_t chunk = 0;             // bytes per chunk (a helper's piece of a DMA); 0: "auto"
    int buffers = 0;                // page-locked chunks per helper; 0: "auto"
    uint64_t dma = kEngineDmaAuto;  // bytes per DMA; 0: "chunk" (one chunk per DMA)
    StagingAffinity affinity = StagingAffinity::gpu_local;
    std::vector<int> cpus;                         // affinity = list
    StagingStreams streams = StagingStreams::one;  // measured faster (docs/results/h200-cure.md)
    StagingWait wait = StagingWait::spin;
    StagingMappedFiles mapped_files = StagingMappedFiles::read;  // issue #58, H100 passes
    StagingStart start = StagingStart::helpers;  // "caller": slower in processes (issue #58)
    StagingLock lock = StagingLock::block;  // "spin": issue #58, not yet measured on a GPU
    // The Python module's alone (no [staging] key: a staged run always stages):
    uint64_t direct_below = kDirectBelowAuto;  // a smaller copy is one plain copy
    PageableRoute pageable = PageableRoute::auto_;
    StagingWake wake = StagingWake::arrival;  // "call": issue #58, not yet measured on a GPU
    bool measure = false;  // Engine.stats() with the helpers' times and a copy's edges
    bool operator==(const EngineOptions&) const = default;
};

// One option: declared once, bound to [staging] (when `scenario`) and to Engine(...).
struct EngineOptionRow {
    std::string name;  // "chunk": [staging] chunk, Engine(chunk=...)
    std::string type;  // "size or \"auto\""
    std::string unit;  // what a number counts ("bytes"); "" when it counts nothing
    std::string doc;   // one line; "{values}" stands for the values' list (help, docstring)
    // What "auto" becomes, from kEngineDefaults' numbers ("auto: 1 MiB; ..."); empty where the
    // default is no "auto". Also at the end of `doc`.
    std::string rule;
    std::vector<std::string> values;  // the names it takes ("spin", "block"); empty: a number
    bool scenario = true;             // also a [staging] key
    // Checks a value (a scenario file's TOML as JSON, or a Python argument as JSON) and stores
    // it; the message when it is refused, and `options` as it was.
    std::function<SettingResult(const nlohmann::json& value, EngineOptions& options)> parse;
    // The value as results.json and the worker wire record it, into `table` (a size's bytes
    // beside its text: "chunk_bytes").
    std::function<void(const EngineOptions& options, nlohmann::json& table)> write;
    // Back from such a table, without parse's checks; false when the table has no such key
    // (results written before it existed): `before` then, else the default, stays.
    std::function<bool(const nlohmann::json& table, EngineOptions& options)> read;
    // What ran before the option was recorded, where that is not today's default (dma: each
    // helper's own buffers, "chunk"); null: the default.
    nlohmann::json before;

    // `doc` with the values in it.
    std::string meaning() const;
};

// Every option, in documentation order.
const std::vector<EngineOptionRow>& engine_option_rows();
// nullptr for a name that is no option.
const EngineOptionRow* find_engine_option(std::string_view name);
// The option's default as its recorded form writes it ("auto", 1048576 for a size's bytes are
// beside it in write()): `name`'s value in write(EngineOptions{}).
nlohmann::json engine_option_default(const EngineOptionRow& row);

// [staging] keys retired, with what replaced them: a file or --set that still names one is
// told so; an old results.json that recorded one keeps it as a recorded value
// (RunSettings::retired) and renders it.
struct RetiredOption {
    std::string name;  // "taper"
    std::string why;   // "retired in issue #45: ..."
    // Its default while it existed, as the report wrote it: a recorded value equal to it stays
    // hidden among the defaults, as it was then; "" where reports showed every recorded value.
    std::string was_default = {};
};
const std::vector<RetiredOption>& retired_engine_options();

}  // namespace xfer
