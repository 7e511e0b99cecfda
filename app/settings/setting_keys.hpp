#pragma once
// Every key of [transfer], [staging] and [threads], described once: its name, type, values,
// help and backend, how a file's value is checked and stored, and how the value is written to
// results.json and the worker wire and read back. The file's tables, [[run]] overrides, [sweep]
// values, --set, the plan expansion, `xferlab help scenario-keys`, the completion, results and
// the wire all go through this one table (setting_keys.cpp), so that they accept, name and
// record exactly the same values.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "settings/messages.hpp"
#include "settings/specs.hpp"

namespace xfer {

struct SettingKey {
    std::string table;  // "transfer", "staging" or "threads"
    std::string name;   // "context"
    std::string type;   // "string", "size or integer", ...
    std::string unit;   // what a number counts ("bytes"); "" when it counts nothing
    // One line for `xferlab help scenario-keys`; "{values}" stands for the values' list.
    std::string help;
    // The names the value may be, from its enum's table ("primary", "per-worker";
    // "numa:<node>"), for messages, help and the completion. Empty: a number, a size, a list.
    std::vector<std::string> values;
    std::string backend;  // the one backend the key acts on ("cuda"); "" for every backend
    // Checks a file's value (TOML as JSON) and stores it; the message when it is refused.
    std::function<SettingResult(const nlohmann::json& value, TransferSpec&, ThreadSpec&)> parse;
    // The value into its table of results.json (and of the worker wire): under the key, and
    // beside a text the exact number ("bytes_text" beside "bytes", "start_stagger_ns").
    std::function<void(const TransferSpec&, const ThreadSpec&, nlohmann::json& table)> write;
    // Back from that table, without the file's checks (what was recorded ran); false when the
    // table has no such key (results written before it existed): the default stays. Throws
    // std::runtime_error for a value that `write` never writes.
    std::function<bool(const nlohmann::json& table, TransferSpec&, ThreadSpec&)> read;

    std::string dotted() const { return table + "." + name; }
    // `help` with the values in it: "how a helper waits for its DMA: spin or block".
    std::string meaning() const;
};

// Every key, [transfer] first, then [threads] and [staging] (docs/scenarios.md's order).
const std::vector<SettingKey>& setting_key_descriptors();

// The tables whose keys are settings: "transfer", "threads", "staging".
const std::vector<std::string>& setting_tables();
// Keys of one of those tables (without the table prefix), in documentation order.
std::vector<std::string> setting_keys(const std::string& table);
// Every "transfer.x", "threads.x" and "staging.x" key.
std::vector<std::string> all_setting_keys();
// nullptr for a dotted name that is no setting.
const SettingKey* find_setting_key(std::string_view dotted);
inline bool is_setting_key(std::string_view dotted) { return find_setting_key(dotted) != nullptr; }

// For a key that was retired (settings/engine_options.hpp: "staging.taper", or "taper" inside
// [staging]): "staging.taper was retired in issue #45: ...". "" for any other key.
std::string retired_key_message(std::string_view dotted);

// Validates `value` for `dotted` ("threads.count") and stores it; a refused value leaves the
// specs as they were. Unknown keys are the caller's to report (is_setting_key first).
SettingResult apply_setting(std::string_view dotted, const nlohmann::json& value,
                            TransferSpec& transfer, ThreadSpec& threads);

// The key's default as a file writes it ("64 MiB", "\"primary\"" as TOML/JSON text).
std::string setting_default(const SettingKey& key);
// The key's value in `transfer` and `threads` as a reader wants it: its text beside the number
// where the key writes one ("64 MiB" rather than 67108864).
nlohmann::json setting_value(const SettingKey& key, const TransferSpec& transfer,
                             const ThreadSpec& threads);

}  // namespace xfer
