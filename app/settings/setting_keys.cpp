// The table of every [transfer], [staging] and [threads] key: one row each. A key whose value
// is a name of an enum is one enum_key row (its names come from the enum's table); the others
// say how their value is checked, written and read back.
#include "settings/setting_keys.hpp"

#include <map>
#include <stdexcept>

#include "settings/value_checks.hpp"
#include "settings/value_forms.hpp"
#include "util/format.hpp"

namespace xfer {

using nlohmann::json;
using namespace settings_internal;

namespace {

// A key's field is reached by a generic lambda, (auto& transfer, auto& threads) -> auto&, so
// that one accessor serves the checks (mutable specs) and the writer (const ones).

constexpr const char* kCuda = "cuda";

SettingKey key(const char* table, const char* name, const char* type, std::string help,
               const char* backend = "") {
    SettingKey k;
    k.table = table;
    k.name = name;
    k.type = type;
    k.help = std::move(help);
    k.backend = backend;
    return k;
}

// A key that takes the names of E's table besides a form (an array, an argument).
template <NamedEnum E>
SettingKey named(SettingKey k) {
    k.values = enum_choices<E>();
    return k;
}

// A key written as the value itself (an integer, a boolean) and read back as one.
template <class Field>
void as_json_value(SettingKey& k, Field field) {
    k.write = [field, name = k.name](const TransferSpec& t, const ThreadSpec& th, json& j) {
        j[name] = field(t, th);
    };
    k.read = [field, name = k.name](const json& j, TransferSpec& t, ThreadSpec& th) {
        const auto it = j.find(name);
        if (it == j.end()) return false;
        it->get_to(field(t, th));
        return true;
    };
}

// A key whose value is a name of E's table.
template <NamedEnum E, class Field>
SettingKey enum_key(const char* table, const char* name, std::string help, Field field,
                    const char* backend = "") {
    SettingKey k = key(table, name, "string", std::move(help), backend);
    k.values = enum_choices<E>();
    k.parse = [field](const json& v, TransferSpec& t, ThreadSpec& th) {
        return want_enum(v, field(t, th));
    };
    k.write = [field, name = k.name](const TransferSpec& t, const ThreadSpec& th, json& j) {
        j[name] = to_string(field(t, th));
    };
    k.read = [field, name = k.name, dotted = k.dotted()](const json& j, TransferSpec& t,
                                                         ThreadSpec& th) {
        const auto it = j.find(name);
        if (it == j.end()) return false;
        field(t, th) = enum_from<E>(*it, dotted);
        return true;
    };
    return k;
}

// An integer key in [lo, hi].
template <class Field>
SettingKey int_key(const char* table, const char* name, std::string help, int lo, int hi,
                   std::string why, Field field, const char* backend = "") {
    SettingKey k = key(table, name, "integer", std::move(help), backend);
    k.parse = [=](const json& v, TransferSpec& t, ThreadSpec& th) {
        return want_int(v, lo, hi, field(t, th), why);
    };
    as_json_value(k, field);
    return k;
}

template <class Field>
SettingKey bool_key(const char* table, const char* name, std::string help, Field field,
                    const char* backend = "") {
    SettingKey k = key(table, name, "boolean", std::move(help), backend);
    k.parse = [field](const json& v, TransferSpec& t, ThreadSpec& th) {
        return want_bool(v, field(t, th));
    };
    as_json_value(k, field);
    return k;
}

// A key whose value has a form (settings/value_forms.hpp): `check` is its file check,
// `text` its recorded form, `from` the form read back.
template <class Field, class Check, class Text, class From>
SettingKey form_key(SettingKey k, Field field, Check check, Text text, From from) {
    k.parse = [field, check](const json& v, TransferSpec& t, ThreadSpec& th) {
        return check(v, field(t, th));
    };
    k.write = [field, text, name = k.name](const TransferSpec& t, const ThreadSpec& th, json& j) {
        j[name] = text(field(t, th));
    };
    k.read = [field, from, name = k.name](const json& j, TransferSpec& t, ThreadSpec& th) {
        const auto it = j.find(name);
        if (it == j.end()) return false;
        field(t, th) = from(*it);
        return true;
    };
    return k;
}

SettingKey bytes_key() {
    SettingKey k = key("transfer", "bytes", "size or integer", "bytes per copy, at least 1");
    k.unit = "bytes";
    k.parse = [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
        uint64_t b = 0;
        const std::string what = "a size such as \"64MiB\" or an integer number of bytes";
        if (auto err = want_size(v, what, b)) return err;
        if (b == 0) return SettingError{"a copy must move at least 1 byte; got " + describe(v)};
        t.bytes = b;
        return std::nullopt;
    };
    k.write = [](const TransferSpec& t, const ThreadSpec&, json& j) {
        j["bytes"] = t.bytes;
        j["bytes_text"] = format_size(t.bytes);
    };
    k.read = [](const json& j, TransferSpec& t, ThreadSpec&) {
        const auto it = j.find("bytes");
        if (it == j.end()) return false;
        if (std::string why = negative_problem(*it, "transfer.bytes"); !why.empty())
            throw std::runtime_error(why);
        it->get_to(t.bytes);
        return true;
    };
    return k;
}

// A [staging] key: one of the staging engine's options (settings/engine_options.hpp), so that
// the key and xferlab.Engine's argument of the same name parse, record and default alike.
SettingKey staging_key(const EngineOptionRow& option) {
    SettingKey k = key("staging", option.name.c_str(), option.type.c_str(), option.doc, kCuda);
    k.unit = option.unit;
    k.values = option.values;
    k.parse = [&option](const json& v, TransferSpec& t, ThreadSpec&) {
        return option.parse(v, t.staging);
    };
    k.write = [&option](const TransferSpec& t, const ThreadSpec&, json& j) {
        option.write(t.staging, j);
    };
    k.read = [&option](const json& j, TransferSpec& t, ThreadSpec&) {
        if (option.read(j, t.staging)) return true;
        if (!option.before.is_null()) (void)option.parse(option.before, t.staging);
        return false;
    };
    return k;
}

// threads.start, with the stagger's exact nanoseconds beside the text.
SettingKey start_key() {
    SettingKey k = named<StartKind>(key("threads", "start", "string", "{values}"));
    k.parse = [](const json& v, TransferSpec&, ThreadSpec& t) { return parse_start(v, t.start); };
    k.write = [](const TransferSpec&, const ThreadSpec& t, json& j) {
        j["start"] = to_string(t.start);
        j["start_stagger_ns"] = t.start.stagger_ns;
    };
    k.read = [](const json& j, TransferSpec&, ThreadSpec& t) {
        const auto it = j.find("start");
        if (it == j.end()) return false;
        const auto ns = j.find("start_stagger_ns");
        t.start = start_from(*it, ns == j.end() ? nullptr : &*ns);
        return true;
    };
    return k;
}

// threads.stack_size; the guard size that mimic = "python" sets (no key of its own) is
// recorded beside it.
SettingKey stack_size_key() {
    SettingKey k = key("threads", "stack_size", "string or integer",
                       "\"default\" or a size of at least 16 KiB");
    k.unit = "bytes";
    k.parse = [](const json& v, TransferSpec&, ThreadSpec& t) {
        return parse_stack_size(v, t.stack_size);
    };
    k.write = [](const TransferSpec&, const ThreadSpec& t, json& j) {
        j["stack_size"] = t.stack_size;
        j["stack_size_text"] = t.stack_size ? format_size(t.stack_size) : "default";
        j["guard_size"] = t.guard_size;
        j["guard_size_text"] = t.guard_size ? format_size(t.guard_size) : "default";
    };
    k.read = [](const json& j, TransferSpec&, ThreadSpec& t) {
        const auto it = j.find("stack_size");
        if (it == j.end()) return false;
        for (const char* size : {"stack_size", "guard_size"})
            if (std::string why =
                    negative_problem(j.value(size, json(0)), "threads." + std::string(size));
                !why.empty())
                throw std::runtime_error(why);
        it->get_to(t.stack_size);
        t.guard_size = j.value("guard_size", uint64_t(0));
        return true;
    };
    return k;
}

// threads.between, with the duration's exact nanoseconds beside the text.
SettingKey between_key() {
    SettingKey k =
        named<BetweenKind>(key("threads", "between", "string", "between copies: {values}"));
    k.parse = [](const json& v, TransferSpec&, ThreadSpec& t) {
        return parse_between(v, t.between);
    };
    k.write = [](const TransferSpec&, const ThreadSpec& t, json& j) {
        j["between"] = to_string(t.between);
        j["between_sleep_ns"] = t.between.sleep_ns;
    };
    k.read = [](const json& j, TransferSpec&, ThreadSpec& t) {
        const auto it = j.find("between");
        if (it == j.end()) return false;
        const auto ns = j.find("between_sleep_ns");
        t.between = between_from(*it, ns == j.end() ? nullptr : &*ns);
        return true;
    };
    return k;
}

std::vector<SettingKey> build_table() {
    const std::string async = "api = \"" + to_string(CopyApi::async) + "\"";
    std::vector<SettingKey> keys = {
        // [transfer]
        enum_key<Direction>(
            "transfer", "direction", "{values} (d2d: within a device)",
            [](auto& t, auto&) -> auto& { return t.direction; }),
        bytes_key(),
        form_key(
            named<HostMemoryKind>(key("transfer", "host_memory", "string", "{values}")),
            [](auto& t, auto&) -> auto& { return t.host_memory; }, parse_host_memory,
            [](const HostMemory& m) { return to_string(m); }, host_memory_from),
        enum_key<FirstTouch>(
            "transfer", "first_touch", "which thread first writes the host buffers: {values}",
            [](auto& t, auto&) -> auto& { return t.first_touch; }),
        form_key(
            key("transfer", "devices", "string or array",
                "\"round-robin\", or device indices: worker i on devices[i % len]"),
            [](auto& t, auto&) -> auto& { return t.devices; }, parse_devices, devices_json,
            devices_from),
        enum_key<CopyApi>(
            "transfer", "api", "{values}: cudaMemcpy, or cudaMemcpyAsync and a sync",
            [](auto& t, auto&) -> auto& { return t.api; }, kCuda),
        enum_key<StreamKind>(
            "transfer", "stream", "{values} (" + async + ")",
            [](auto& t, auto&) -> auto& { return t.stream; }, kCuda),
        enum_key<TimingMode>(
            "transfer", "timing", "where device times come from: {values}",
            [](auto& t, auto&) -> auto& { return t.timing; }),
        enum_key<ContextKind>(
            "transfer", "context", "CUDA context: {values} (the process's, or the worker's own)",
            [](auto& t, auto&) -> auto& { return t.context; }, kCuda),
        enum_key<CopyPath>(
            "transfer", "path", "{values}: how h2d/d2h bytes reach the DMA engine",
            [](auto& t, auto&) -> auto& { return t.path; }, kCuda),
        int_key(
            "transfer", "repetitions", "timed copies per worker, at least 1", 1, INT_MAX,
            "each run copies at least once", [](auto& t, auto&) -> auto& { return t.repetitions; }),
        int_key(
            "transfer", "warmup", "untimed copies per worker before the timed ones", 0, INT_MAX, "",
            [](auto& t, auto&) -> auto& { return t.warmup; }),
        bool_key(
            "transfer", "verify", "check every copied byte after the run",
            [](auto& t, auto&) -> auto& { return t.verify; }),
        // [threads]
        int_key(
            "threads", "count", "workers, 1..4096", 1, kMaxThreads,
            "more than 4096 threads is a typo", [](auto&, auto& th) -> auto& { return th.count; }),
        start_key(),
        stack_size_key(),
        form_key(
            named<SignalMaskKind>(key("threads", "signal_mask", "string or array",
                                      "{values}, or signal names to block")),
            [](auto&, auto& th) -> auto& { return th.signal_mask; }, parse_signal_mask,
            signal_mask_json, signal_mask_from),
        form_key(
            named<AffinityKind>(
                key("threads", "affinity", "string or array", "{values}, or CPU numbers")),
            [](auto&, auto& th) -> auto& { return th.affinity; }, parse_affinity, affinity_json,
            affinity_from),
        form_key(
            named<SchedPolicy>(key("threads", "policy", "string", "{values} (1..99)")),
            [](auto&, auto& th) -> auto& { return th.policy; }, parse_policy,
            [](const PolicySpec& p) { return to_string(p); }, policy_from),
        between_key(),
        bool_key(
            "threads", "gap_stages",
            "stamp where a Python call returns to the interpreter and leaves it",
            [](auto&, auto& th) -> auto& { return th.gap_stages; }),
        bool_key(
            "threads", "gap_counters",
            "read the worker thread's counters at each return and call",
            [](auto&, auto& th) -> auto& { return th.gap_counters; }),
    };
    for (const EngineOptionRow& option : engine_option_rows())
        if (option.scenario) keys.push_back(staging_key(option));
    return keys;
}

}  // namespace

std::string SettingKey::meaning() const { return with_values(help, values); }

const std::vector<SettingKey>& setting_key_descriptors() {
    static const std::vector<SettingKey> keys = build_table();
    return keys;
}

const std::vector<std::string>& setting_tables() {
    static const std::vector<std::string> tables = {"transfer", "threads", "staging"};
    return tables;
}

std::vector<std::string> setting_keys(const std::string& table) {
    std::vector<std::string> out;
    for (const auto& k : setting_key_descriptors())
        if (k.table == table) out.push_back(k.name);
    return out;
}

std::vector<std::string> all_setting_keys() {
    std::vector<std::string> all;
    for (const std::string& table : setting_tables())
        for (const auto& k : setting_keys(table)) all.push_back(table + "." + k);
    return all;
}

const SettingKey* find_setting_key(std::string_view dotted) {
    for (const auto& k : setting_key_descriptors())
        if (dotted.size() == k.table.size() + 1 + k.name.size() &&
            dotted.substr(0, k.table.size()) == k.table && dotted[k.table.size()] == '.' &&
            dotted.substr(k.table.size() + 1) == k.name)
            return &k;
    return nullptr;
}

std::string retired_key_message(std::string_view dotted) {
    const std::string_view prefix = "staging.";
    const std::string_view name =
        dotted.substr(0, prefix.size()) == prefix ? dotted.substr(prefix.size()) : dotted;
    for (const RetiredOption& r : retired_engine_options())
        if (name == r.name) return "staging." + r.name + " was " + r.why;
    return "";
}

SettingResult apply_setting(std::string_view dotted, const json& value, TransferSpec& transfer,
                            ThreadSpec& threads) {
    const SettingKey* key = find_setting_key(dotted);
    if (!key) return SettingError{"unknown key"};
    // Validate on copies: a rejected value leaves the specs as they were.
    TransferSpec t = transfer;
    ThreadSpec th = threads;
    if (auto err = key->parse(value, t, th)) return err;
    transfer = std::move(t);
    threads = std::move(th);
    return std::nullopt;
}

json setting_value(const SettingKey& key, const TransferSpec& transfer, const ThreadSpec& threads) {
    json j = json::object();
    key.write(transfer, threads, j);
    const auto text = j.find(key.name + "_text");  // "64 MiB" rather than 67108864
    return text != j.end() ? *text : j.at(key.name);
}

std::string setting_default(const SettingKey& key) {
    return setting_value(key, TransferSpec{}, ThreadSpec{}).dump();
}

}  // namespace xfer
