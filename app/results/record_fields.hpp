#pragma once
// One row per field of a copy's record (Record, record.hpp), with everything each format does
// with it: results.json's key (serialize.cpp reads and writes a record through the rows, and
// so do the journal and `report --format json`), results.sqlite's `copies` column
// (copies_table.hpp: created, bound and selected by name), a payload's w.records()
// (embed/py_convert.cpp: the rows' JSON under each field's name), and what copies.csv
// (report/render/csv_reporter.cpp) writes for it, which test_results_record_fields holds the
// csv reporter to. `xferlab help record-fields` prints the rows (record_fields_doc.hpp);
// docs/reading-reports.md's table of record fields is its --markdown text, and
// tests/python/test_record_fields.py holds python/xferlab_plots and tests/python's audit to
// the rows' keys through its --json text.
//
// To add a field: its member in Record and its row in record_fields.cpp (`since`
// kRecordStoreSchema + 1, not_in_csv() unless the csv reporter writes it), then regenerate
// docs/reading-reports.md's table. The store keeps its schema number: an older xferlab selects
// the columns it knows by name and still reads the file, and this one reads the new column
// wherever a store has it (copies_fields_of).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <variant>

#include "results/record.hpp"

namespace xfer {

struct RunResult;
class SqliteStatement;

// A results.sqlite cell: NULL, an integer or text.
using SqlCell = std::variant<std::monostate, int64_t, std::string>;

// What a copies.csv cell needs beside its record: the run (its index, its timed blocks'
// labels) and the origin of the file's times (the results' first host_start_ns).
struct CsvPlace {
    const RunResult& run;
    int64_t origin = 0;
};

struct RecordField {
    // What it is, as `help record-fields` and the docs say it.
    const char* name = "";     // Record's member, and a w.records() dict's key
    const char* type = "";     // the member's type: int32, uint64, bool, enum, object, ...
    const char* meaning = "";  // one line

    // results.json (and w.records()): the key, written where `written` holds (nullptr:
    // always). Read where the key is there and, for a field with a `gate` (another field's
    // key), where the gate's key is too: a timed block's fields go with "source", a watched
    // copy's kinds with "copy_kind". A `required` key absent past its gate refuses the record
    // ("key 'worker' not found").
    const char* json_key = "";
    const char* json_form = "";  // how the value is written where it is not the number itself
    const char* present = "";    // when the key is there ("": always)
    bool (*written)(const Record&) = nullptr;
    const char* gate = nullptr;
    bool required = true;
    nlohmann::json (*to_json)(const Record&) = nullptr;
    // The value of `key` into the record; throws naming the key.
    void (*from_json)(const nlohmann::json& value, const char* key, Record&) = nullptr;

    // results.sqlite's copies: the column, its SQL type, when it is NULL (a NULL cell is read
    // as Record's default), and the store schema that added it. A field without `null_when` is
    // never NULL, but for a gated field where its gate's column is (a NULL cell is refused
    // where its gate's is not).
    const char* column = "";
    const char* column_type = "INTEGER";
    const char* null_when = "";
    int since = 1;
    SqlCell (*to_sql)(const Record&, const RunResult&) = nullptr;
    // A cell that is not NULL (or any cell, for a field never NULL); throws naming the column.
    // `run`: a timed block's label becomes its index in run.copy_sources.
    void (*from_sql)(const SqliteStatement&, int col, Record&, RunResult& run) = nullptr;

    // copies.csv: the column ("": not in the file) and, where the cell is not the SQLite
    // cell, what it holds.
    const char* csv_column = "";
    const char* csv_form = "";  // "": the results.sqlite cell, empty where NULL
    void (*to_csv)(const Record&, const CsvPlace&, std::string& out) = nullptr;
};

// Every field, in Record's order (results.sqlite's column order).
std::span<const RecordField> record_fields();
// A field's row by its name (Record's member), or nullptr.
const RecordField* record_field(const std::string& name);
// A field's row by its results.json key, or nullptr.
const RecordField* record_field_by_key(const std::string& json_key);

// A record as results.json's object, and back (serialize.cpp's to_json and from_json).
nlohmann::json record_json(const Record& r);
void record_from_json(const nlohmann::json& j, Record& r);

// Each field results.json writes for `r`, with its value: each(row, json).
template <typename Each>
void for_each_written_field(const Record& r, Each&& each) {
    for (const RecordField& f : record_fields())
        if (!f.written || f.written(r)) each(f, f.to_json(r));
}

// A field's copies.csv cell before RFC 4180 quoting, appended to `out` (for a field with a
// csv_column; the csv reporter writes the file, and a test holds its cells to these).
void csv_cell(const RecordField& f, const Record& r, const CsvPlace& at, std::string& out);

}  // namespace xfer
