#pragma once
// TOML++ glue for the loader: values as JSON, entries in file order, positions for diagnostics.
#include <toml++/toml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "scenario/diagnostics.hpp"

namespace xfer::scenario_internal {

// A TOML value as JSON: tables -> objects, arrays -> arrays, dates and times -> ISO strings.
nlohmann::json toml_to_json(const toml::node& node);

struct Entry {
    const toml::key* key;
    const toml::node* node;
};

// A table's entries in the order they appear in the file (TOML++ keeps them sorted by name),
// so that diagnostics and [sweep] keys follow the file.
std::vector<Entry> in_file_order(const toml::table& table);

// Line and column of a TOML source region (1-based; 0 when the node has no source).
Diagnostic diagnostic_at(const std::string& file, const toml::source_region& where,
                         const std::string& key, const std::string& message);

// A syntax error of `text` as a diagnostic: the parser's description, after what the user most
// likely did where the parser names only the symptom (syntax_error_hint).
Diagnostic syntax_error_diagnostic(const std::string& file, const std::string& text,
                                   const toml::parse_error& e);

// `text` parsed as TOML, named `name` in diagnostics; a text nested deeper than TOML++ can take
// (toml_depth.hpp) is refused before it parses. Throws ScenarioError with the one diagnostic,
// at its line and column.
toml::table parse_toml(const std::string& text, const std::string& name);

// Whether `a` starts before `b` in the file.
bool before(const toml::source_region& a, const toml::source_region& b);

}  // namespace xfer::scenario_internal
