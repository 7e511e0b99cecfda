#include "results/record_fields_doc.hpp"

#include "results/record_fields.hpp"
#include "util/text_table.hpp"

namespace xfer {

namespace {

std::string code(const std::string& s) { return "`" + s + "`"; }

// When results.sqlite's cell is NULL: the field's own words, or its gate's (a watched copy's
// kinds are NULL where copy_kind is).
std::string null_when(const RecordField& f) {
    if (f.null_when[0] != '\0') return f.null_when;
    if (f.gate)
        if (const RecordField* gate = record_field_by_key(f.gate)) return gate->null_when;
    return "";
}

std::string json_text(const RecordField& f) {
    std::string out = code(f.json_key);
    if (f.json_form[0] != '\0') out += ": " + std::string(f.json_form);
    if (f.present[0] != '\0') out += "; " + std::string(f.present);
    return out;
}

std::string sqlite_cell(const RecordField& f) {
    std::string out = code(f.column) + " " + f.column_type;
    if (const std::string when = null_when(f); !when.empty()) out += "; NULL " + when;
    return out;
}

std::string csv_cell_text(const RecordField& f) {
    if (f.csv_column[0] == '\0') return "not in the file";
    std::string out = code(f.csv_column);
    if (f.csv_form[0] != '\0') out += ": " + std::string(f.csv_form);
    return out;
}

}  // namespace

std::string record_fields_markdown() {
    std::string out =
        "| field | type | results.json | results.sqlite `copies` | schema | copies.csv | "
        "meaning |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const RecordField& f : record_fields())
        out += "| " + code(f.name) + " | " + f.type + " | " + json_text(f) + " | " +
               sqlite_cell(f) + " | " + std::to_string(f.since) + " | " + csv_cell_text(f) + " | " +
               f.meaning + " |\n";
    return out;
}

std::string record_fields_text(size_t width) {
    TextTable t;
    t.add_column("field", TextTable::Align::left);
    t.add_column("results.json", TextTable::Align::left);
    t.add_column("results.sqlite", TextTable::Align::left);
    t.add_column("copies.csv", TextTable::Align::left);
    t.add_column("meaning", TextTable::Align::left, true);
    for (const RecordField& f : record_fields())
        t.add_row({f.name, f.json_key, std::string(f.column) + " (" + std::to_string(f.since) + ")",
                   f.csv_column[0] ? f.csv_column : "-", f.meaning});
    return t.render(width, 0);
}

nlohmann::json record_fields_json() {
    nlohmann::json rows = nlohmann::json::array();
    for (const RecordField& f : record_fields())
        rows.push_back({{"name", f.name},
                        {"type", f.type},
                        {"json_key", f.json_key},
                        {"json_form", f.json_form},
                        {"present", f.present},
                        {"gate", f.gate ? nlohmann::json(f.gate) : nlohmann::json()},
                        {"required", f.required},
                        {"column", f.column},
                        {"column_type", f.column_type},
                        {"null_when", null_when(f)},
                        {"since", f.since},
                        {"csv_column", f.csv_column},
                        {"csv_form", f.csv_form},
                        {"meaning", f.meaning}});
    return rows;
}

}  // namespace xfer
