// The staging engine's options, one row each (settings/engine_options.hpp). The defaults are
// EngineOptions' own; what each "auto" becomes, and why, is kEngineDefaults
// (settings/engine_defaults.hpp), whose numbers the rules below print.
#include "settings/engine_options.hpp"

#include <fmt/format.h>

#include "settings/engine_defaults.hpp"
#include "settings/value_checks.hpp"
#include "settings/value_forms.hpp"
#include "util/format.hpp"

namespace xfer {

using nlohmann::json;
using namespace settings_internal;

namespace {

constexpr std::string_view kAuto = "auto";
constexpr int kMaxHelpers = 256;
constexpr int kMaxBuffers = 64;
constexpr uint64_t kMinChunk = 4096;

EngineOptionRow row(const char* name, std::string type, std::string doc, bool scenario = true) {
    EngineOptionRow r;
    r.name = name;
    r.type = std::move(type);
    r.doc = std::move(doc);
    r.scenario = scenario;
    return r;
}

// An option whose value is a name of E's table.
template <NamedEnum E>
EngineOptionRow enum_option(const char* name, std::string doc, E EngineOptions::*field,
                            bool scenario = true) {
    EngineOptionRow r = row(name, "string", std::move(doc), scenario);
    r.values = enum_choices<E>();
    r.parse = [field](const json& v, EngineOptions& o) { return want_enum(v, o.*field); };
    r.write = [field, key = r.name](const EngineOptions& o, json& j) {
        j[key] = to_string(o.*field);
    };
    r.read = [field, key = r.name](const json& j, EngineOptions& o) {
        const auto it = j.find(key);
        if (it == j.end()) return false;
        o.*field = enum_from<E>(*it, "staging." + key);
        return true;
    };
    return r;
}

// An integer option in [1, hi], or "auto" (0).
EngineOptionRow count_option(const char* name, std::string doc, int hi, int EngineOptions::*field,
                             std::string why) {
    EngineOptionRow r = row(name, "integer or \"auto\"", std::move(doc));
    r.parse = [=](const json& v, EngineOptions& o) -> SettingResult {
        if (v.is_string() && v == kAuto) {
            o.*field = 0;
            return std::nullopt;
        }
        if (v.is_string()) return not_one_of(v, {std::string(kAuto)});
        return want_int(v, 1, hi, o.*field, "or \"auto\"; " + why);
    };
    r.write = [field, key = r.name](const EngineOptions& o, json& j) {
        j[key] = o.*field > 0 ? json(o.*field) : json(kAuto);
    };
    r.read = [field, key = r.name](const json& j, EngineOptions& o) {
        const auto it = j.find(key);
        if (it == j.end()) return false;
        o.*field = it->is_number_integer() ? it->get<int>() : 0;
        return true;
    };
    return r;
}

// A size of at least `least` bytes, or one of `words` (each standing for a value of the field),
// recorded as text with its bytes beside it ("chunk", "chunk_bytes").
struct SizeWord {
    std::string word;
    uint64_t value;
};
EngineOptionRow size_option(const char* name, std::vector<SizeWord> words, std::string doc,
                            uint64_t EngineOptions::*field, uint64_t least, std::string example,
                            std::string noun, bool scenario = true) {
    std::string type = "size";
    for (const auto& w : words) type += " or \"" + w.word + "\"";
    EngineOptionRow r = row(name, type, std::move(doc), scenario);
    r.unit = "bytes";
    std::string what = "a size such as \"" + example + "\"";
    for (const auto& w : words) what += " or \"" + w.word + "\"";
    r.parse = [=](const json& v, EngineOptions& o) -> SettingResult {
        for (const auto& w : words)
            if (v.is_string() && v == w.word) {
                o.*field = w.value;
                return std::nullopt;
            }
        uint64_t b = 0;
        if (auto err = want_size(v, what, b)) return err;
        if (b < least)
            return SettingError{noun + " must be at least " + format_size(least) + "; got " +
                                describe(v)};
        o.*field = b;
        return std::nullopt;
    };
    const std::string key = name, bytes_key = std::string(name) + "_bytes";
    r.write = [=](const EngineOptions& o, json& j) {
        const uint64_t b = o.*field;
        j[key] = format_size(b);
        for (const auto& w : words)
            if (b == w.value) j[key] = w.word;
        j[bytes_key] = b;
    };
    r.read = [=](const json& j, EngineOptions& o) {
        const auto it = j.find(key);
        if (it == j.end()) return false;
        for (const auto& w : words)
            if (*it == w.word) {
                o.*field = w.value;
                return true;
            }
        o.*field = j.value(bytes_key, uint64_t(0));
        return true;
    };
    return r;
}

EngineOptionRow affinity_option() {
    EngineOptionRow r =
        row("affinity", "string or array", "where the helpers run: {values}, or CPU numbers");
    r.values = enum_choices<StagingAffinity>();
    r.parse = [](const json& v, EngineOptions& o) {
        return parse_cpu_choice(v, o.affinity, o.cpus);
    };
    r.write = [](const EngineOptions& o, json& j) {
        j["affinity"] = cpu_choice_json(o.affinity, o.cpus);
    };
    r.read = [](const json& j, EngineOptions& o) {
        const auto it = j.find("affinity");
        if (it == j.end()) return false;
        cpu_choice_from(*it, "staging.affinity", o.affinity, o.cpus);
        return true;
    };
    return r;
}

EngineOptionRow measure_option() {
    EngineOptionRow r =
        row("measure", "boolean", "time the helpers and a copy's edges for stats()", false);
    r.parse = [](const json& v, EngineOptions& o) { return want_bool(v, o.measure); };
    r.write = [](const EngineOptions& o, json& j) { j["measure"] = o.measure; };
    r.read = [](const json& j, EngineOptions& o) {
        const auto it = j.find("measure");
        if (it == j.end()) return false;
        it->get_to(o.measure);
        return true;
    };
    return r;
}

// staging.start, recorded since issue #58; "helpers" (as before it) is the default again: with
// "caller" a whole copy from one caller was not separated from it, and four processes' were
// lower in 12 of 15 paired trials (docs/results/caller-start-h100.md).
EngineOptionRow start_option() {
    return enum_option("start", "who fills a copy's first DMA: {values}", &EngineOptions::start);
}

// Engine(wake=...), the module's alone: the harness's workers call the engine directly.
EngineOptionRow wake_option() {
    return enum_option("wake",
                       "wake the helpers as a call enters, where the last copy was staged, or "
                       "as it reaches the engine: {values}",
                       &EngineOptions::wake, false);
}

// A [staging] key recorded since its behaviour changed: results without it ran `before`.
template <NamedEnum E>
EngineOptionRow enum_option_since(const char* name, std::string doc, E EngineOptions::*field,
                                  const char* before) {
    EngineOptionRow r = enum_option(name, std::move(doc), field);
    r.before = before;
    return r;
}

// staging.lock, recorded since issue #58's third session: before it, a plain mutex.
EngineOptionRow lock_option() {
    return enum_option_since("lock",
                             "on finding the engine's lock taken: {values} (spin: tries first)",
                             &EngineOptions::lock, "block");
}

// staging.mapped_files, "read" by default since issue #58 (docs/results/caller-start-h100.md):
// results written before it copied from the mapping.
EngineOptionRow mapped_files_option() {
    return enum_option_since("mapped_files",
                             "to the device from a shared file mapping: {values} (read: pread)",
                             &EngineOptions::mapped_files, "copy");
}

// The row with its rule for "auto": in full for Engine.defaults(), in short after the doc (the
// help table's meaning column holds 72 characters).
EngineOptionRow with_rule(EngineOptionRow r, const std::string& in_short, std::string rule) {
    r.doc += " (" + in_short + ")";
    r.rule = std::move(rule);
    return r;
}

// staging.dma, recorded since pass 6 of the Python module (issue #27): before, every helper DMA'd
// its own chunks.
EngineOptionRow dma_option() {
    const EngineDefaults& d = kEngineDefaults;
    EngineOptionRow r = size_option("dma", {{"auto", kEngineDmaAuto}, {"chunk", 0}},
                                    "bytes per DMA, filled by the helpers together",
                                    &EngineOptions::dma, kMinChunk, "8MiB", "a DMA");
    r.before = "chunk";
    return with_rule(std::move(r), fmt::format("auto: {} chunks", d.chunks_per_dma),
                     fmt::format("auto: {} chunks, {} with the chunk left auto", d.chunks_per_dma,
                                 format_size(d.dma())));
}

std::vector<EngineOptionRow> build_rows() {
    const EngineDefaults& d = kEngineDefaults;
    return {
        with_rule(
            count_option("threads", "helper threads", kMaxHelpers, &EngineOptions::threads,
                         "zero helper threads would move nothing"),
            fmt::format("auto: from the link and a memcpy probe, at most {}", d.max_auto_threads),
            fmt::format("auto: {:g}x the helpers that would feed the device's link at one "
                        "thread's memcpy rate, at most its local CPUs and at most {}",
                        d.helpers_per_link_share, d.max_auto_threads)),
        with_rule(size_option("chunk", {{"auto", 0}}, "bytes a helper copies at a time",
                              &EngineOptions::chunk, kMinChunk, "1MiB", "a staging chunk"),
                  "auto: " + format_size(d.chunk),
                  fmt::format("auto: {}; with dma = \"chunk\" {} to the device, {} from it",
                              format_size(d.chunk), format_size(d.chunk_to_device_per_chunk_dma),
                              format_size(d.chunk_from_device_per_chunk_dma))),
        with_rule(
            count_option("buffers", "page-locked chunks per helper", kMaxBuffers,
                         &EngineOptions::buffers, "page-locked chunk buffers per helper thread"),
            fmt::format("auto: {}, or {} with dma = \"chunk\"", d.buffers, d.buffers_per_chunk_dma),
            fmt::format("auto: {}, or {} with dma = \"chunk\"", d.buffers,
                        d.buffers_per_chunk_dma)),
        dma_option(),
        affinity_option(),
        enum_option("streams", "the DMAs' CUDA streams: {values} (one: in order)",
                    &EngineOptions::streams),
        enum_option("wait", "how a helper waits for a DMA: {values}", &EngineOptions::wait),
        mapped_files_option(),
        start_option(),
        lock_option(),
        with_rule(
            size_option("direct_below", {{"auto", kDirectBelowAuto}},
                        "a smaller copy is one plain copy", &EngineOptions::direct_below, 0,
                        "64KiB", "direct_below", false),
            fmt::format("auto: {} to, {} from", format_size(d.direct_below_to_device),
                        format_size(d.direct_below_from_device)),
            fmt::format("auto: {} to the device, {} from it", format_size(d.direct_below_to_device),
                        format_size(d.direct_below_from_device))),
        with_rule(
            enum_option("pageable", "pageable memory: {values}", &EngineOptions::pageable, false),
            "auto: direct where the device reads it",
            "auto: direct where the device reads pageable memory through the host's page "
            "tables, else staged"),
        wake_option(),
        measure_option(),
    };
}

}  // namespace

std::string EngineOptionRow::meaning() const { return with_values(doc, values); }

const std::vector<EngineOptionRow>& engine_option_rows() {
    static const std::vector<EngineOptionRow> rows = build_rows();
    return rows;
}

const EngineOptionRow* find_engine_option(std::string_view name) {
    for (const auto& r : engine_option_rows())
        if (r.name == name) return &r;
    return nullptr;
}

json engine_option_default(const EngineOptionRow& row) {
    json table = json::object();
    row.write(EngineOptions{}, table);
    return table[row.name];
}

const std::vector<RetiredOption>& retired_engine_options() {
    static const std::vector<RetiredOption> retired = {
        {"taper",
         "retired in issue #45: shorter first and last chunks measured no faster on H200 "
         "(docs/performance.md, passes 6 and 9); remove it"},
        {"linger_us",
         "retired in issue #45: helpers kept awake after a copy measured no faster on H200 "
         "(docs/performance.md, pass 9); remove it"},
        {"ramp",
         "retired in issue #45: shorter first and last DMAs only moved the link's wait into the "
         "middle of a copy on H200 (docs/performance.md, pass 10); remove it"},
        {"stores",
         "retired in issue #55: streaming stores into the page-locked buffers measured slower "
         "than cached ones in every pass on H200 (to the device 0.82-0.92x, docs/performance.md); "
         "the helpers now always copy with memcpy, as stores = \"cached\" and \"auto\" did: "
         "remove it",
         "auto"},
        {"populate",
         "retired in issue #55: idle helpers faulting a copy's pages in ahead measured slower by "
         "median in all three passes on H200 (docs/performance.md, \"Weights from a file\"); "
         "remove it (for a file mapped with numpy.memmap, mapped_files = \"read\" reads the "
         "file instead of faulting the mapping in)",
         "off"},
    };
    return retired;
}

}  // namespace xfer
