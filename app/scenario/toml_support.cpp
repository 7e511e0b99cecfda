#include "scenario/toml_support.hpp"

#include <algorithm>
#include <sstream>

#include "scenario/toml_depth.hpp"

namespace xfer::scenario_internal {

using nlohmann::json;

json toml_to_json(const toml::node& node) {
    if (const auto* t = node.as_table()) {
        json o = json::object();
        for (const auto& [k, v] : *t) o[std::string(k.str())] = toml_to_json(v);
        return o;
    }
    if (const auto* a = node.as_array()) {
        json arr = json::array();
        for (const auto& e : *a) arr.push_back(toml_to_json(e));
        return arr;
    }
    if (const auto* s = node.as_string()) return s->get();
    if (const auto* i = node.as_integer()) return i->get();
    if (const auto* f = node.as_floating_point()) return f->get();
    if (const auto* b = node.as_boolean()) return b->get();
    std::ostringstream text;
    if (const auto* d = node.as_date()) text << d->get();
    if (const auto* t = node.as_time()) text << t->get();
    if (const auto* dt = node.as_date_time()) text << dt->get();
    return text.str();
}

bool before(const toml::source_region& a, const toml::source_region& b) {
    if (a.begin.line != b.begin.line) return a.begin.line < b.begin.line;
    return a.begin.column < b.begin.column;
}

std::vector<Entry> in_file_order(const toml::table& table) {
    std::vector<Entry> entries;
    for (const auto& [k, v] : table) entries.push_back(Entry{&k, &v});
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return before(a.key->source(), b.key->source());
    });
    return entries;
}

Diagnostic diagnostic_at(const std::string& file, const toml::source_region& where,
                         const std::string& key, const std::string& message) {
    return Diagnostic{file, int(where.begin.line), int(where.begin.column), key, message};
}

toml::table parse_toml(const std::string& text, const std::string& name) {
    if (const auto deep = toml_depth_problem(text))
        throw ScenarioError(
            {Diagnostic{name, deep->line, deep->column, "", toml_depth_message(*deep)}});
    try {
        return toml::parse(text, name);
    } catch (const toml::parse_error& e) {
        // TOML stops at the first syntax error: there is only this one to report.
        throw ScenarioError({syntax_error_diagnostic(name, text, e)});
    }
}

Diagnostic syntax_error_diagnostic(const std::string& file, const std::string& text,
                                   const toml::parse_error& e) {
    const std::string description(e.description());
    const auto& at = e.source().begin;
    const std::string hint = syntax_error_hint(description, text, int(at.line), int(at.column));
    // The likely cause first; the parser's own words after it, for what the hint may miss.
    return diagnostic_at(file, e.source(), "",
                         hint.empty() ? description : hint + " (TOML parser: " + description + ")");
}

}  // namespace xfer::scenario_internal
