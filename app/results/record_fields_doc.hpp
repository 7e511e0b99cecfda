#pragma once
// The record fields' table (record_fields.hpp) as `xferlab help record-fields` prints it: for
// the terminal, as docs/reading-reports.md holds it (a test compares the two), and as JSON for
// the tools and tests that check their own field lists against it.
#include <nlohmann/json.hpp>
#include <string>

namespace xfer {

// One line per field, the meaning wrapped to `width`.
std::string record_fields_text(size_t width);
// The markdown table of docs/reading-reports.md ("A record").
std::string record_fields_markdown();
// [{"name", "type", "json_key", "json_form", "present", "gate", "required", "column",
//   "column_type", "null_when", "since", "csv_column", "csv_form", "meaning"}, ...]
nlohmann::json record_fields_json();

}  // namespace xfer
