#pragma once
// One name <-> value table per enum of the scenario keys (settings/enums.hpp). The table is the
// only place a value's name is written: the file reader parses through it, messages and help
// list its names, results.json and the worker wire carry them, the completion offers them.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xfer {

template <class E>
struct EnumRow {
    E value;
    std::string_view name;  // as a file writes it: "per-worker"
    // What follows "name:" for a value that takes an argument ("<node>" of "numa:<node>");
    // "" for a bare name.
    std::string_view argument = {};
    // Written as an array instead of a name (a list of signals or CPUs): no name.
    bool array = false;
};

// An enum's table: a specialisation holding `static constexpr EnumRow<E> rows[]`, one row per
// value in declaration order.
template <class E>
struct EnumTable;

template <class E>
concept NamedEnum = requires {
    EnumTable<E>::rows;
};

template <NamedEnum E>
constexpr bool rows_follow_values() {
    int i = 0;
    for (const auto& row : EnumTable<E>::rows)
        if (int(row.value) != i++) return false;
    return true;
}

template <NamedEnum E>
constexpr std::span<const EnumRow<E>> enum_rows() {
    static_assert(rows_follow_values<E>(),
                  "an enum's table lists every value once, in declaration order");
    return EnumTable<E>::rows;
}

template <NamedEnum E>
constexpr const EnumRow<E>& enum_row(E value) {
    return enum_rows<E>()[size_t(value)];
}

// "per-worker"; for a value with an argument, the name before the ':'.
template <NamedEnum E>
std::string to_string(E value) {
    return std::string(enum_row(value).name);
}

// A value as a file writes it, its argument as a placeholder: "per-worker", "numa:<node>".
template <NamedEnum E>
std::string enum_choice(E value) {
    const auto& row = enum_row(value);
    return row.argument.empty() ? std::string(row.name)
                                : std::string(row.name) + ":" + std::string(row.argument);
}

// A value in a message, quoted as a file writes it: "\"per-worker\"".
template <NamedEnum E>
std::string quoted_value(E value) {
    return "\"" + enum_choice(value) + "\"";
}

// Every value as a file writes it, for messages, help and completion: "pageable", ...,
// "numa:<node>" (values written as arrays left out).
template <NamedEnum E>
std::vector<std::string> enum_choices() {
    std::vector<std::string> out;
    for (const auto& row : enum_rows<E>()) {
        if (!row.array) out.push_back(enum_choice(row.value));
    }
    return out;
}

// The value written as the bare name `text`.
template <NamedEnum E>
std::optional<E> enum_named(std::string_view text) {
    for (const auto& row : enum_rows<E>())
        if (!row.array && row.argument.empty() && row.name == text) return row.value;
    return std::nullopt;
}

// The value E's table writes as an array (a list of CPUs, of signals); only asked of enums that
// have such a row.
template <NamedEnum E>
constexpr E array_value() {
    for (const auto& row : enum_rows<E>())
        if (row.array) return row.value;
    return E{};
}

// The value whose "name:" starts `text`, and what follows it ("numa:1" -> numa, "1").
template <NamedEnum E>
std::optional<std::pair<E, std::string>> enum_with_argument(std::string_view text) {
    for (const auto& row : enum_rows<E>()) {
        if (row.array || row.argument.empty()) continue;
        const std::string prefix = std::string(row.name) + ":";
        if (text.substr(0, prefix.size()) == prefix)
            return std::pair{row.value, std::string(text.substr(prefix.size()))};
    }
    return std::nullopt;
}

// The text of a value: its name, with ":<argument>" for a value that takes one.
template <NamedEnum E>
std::string enum_text(E value, const std::string& argument) {
    const auto& row = enum_row(value);
    return row.argument.empty() ? std::string(row.name) : std::string(row.name) + ":" + argument;
}

}  // namespace xfer
