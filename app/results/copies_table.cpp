// results.sqlite's copies table through the rows of record_fields.hpp.
#include "results/copies_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "results/run_result.hpp"
#include "results/sqlite_db.hpp"

namespace xfer {

namespace {

// "a, b, c", each field's column through `column`.
template <typename Column>
std::string joined(std::span<const RecordField* const> fields, Column column) {
    std::string out;
    for (const RecordField* f : fields) {
        if (!out.empty()) out += ", ";
        out += column(*f);
    }
    return out;
}

std::vector<const RecordField*> every_field() {
    std::vector<const RecordField*> all;
    for (const RecordField& f : record_fields()) all.push_back(&f);
    return all;
}

std::string insert_sql() {
    const auto all = every_field();
    return "INSERT INTO copies(" +
           joined(all, [](const RecordField& f) { return std::string(f.column); }) + ") VALUES(" +
           joined(all, [](const RecordField& f) { return std::string(":") + f.column; }) + ")";
}

// The gate's column of `f` (a timed block's "source", a watched copy's "copy_kind").
const char* gate_column(const RecordField& f) {
    if (!f.gate) return nullptr;
    const RecordField* gate = record_field_by_key(f.gate);
    return gate ? gate->column : nullptr;
}

}  // namespace

std::string copies_table_sql() {
    return "CREATE TABLE copies(" +
           joined(
               every_field(),
               [](const RecordField& f) { return std::string(f.column) + " " + f.column_type; }) +
           ");\n";
}

CopiesInsert::CopiesInsert(const SqliteDb& db)
    : s_(std::make_unique<SqliteStatement>(db, insert_sql())) {
    for (const RecordField& f : record_fields())
        parameters_.push_back(s_->parameter(std::string(":") + f.column));
}

CopiesInsert::~CopiesInsert() = default;

void CopiesInsert::add(const Record& r, const RunResult& run) {
    const auto fields = record_fields();
    for (size_t i = 0; i < fields.size(); ++i) {
        const int p = parameters_[i];
        std::visit(
            [&](const auto& v) {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
                    s_->bind_null(p);
                else
                    s_->bind(p, v);
            },
            fields[i].to_sql(r, run));
    }
    s_->run();
}

std::vector<std::string> copies_columns(const SqliteDb& db) {
    std::vector<std::string> names;
    SqliteStatement s(db, "SELECT name FROM pragma_table_info('copies')");
    while (s.step()) names.push_back(s.text(0));
    return names;
}

std::vector<const RecordField*> copies_fields_of(int schema,
                                                 const std::vector<std::string>& columns) {
    std::vector<const RecordField*> fields;
    for (const RecordField& f : record_fields()) {
        const bool in_store = f.since <= schema ||
                              std::find(columns.begin(), columns.end(), f.column) != columns.end();
        if (in_store) fields.push_back(&f);
    }
    return fields;
}

CopiesSelect::CopiesSelect(const SqliteDb& db, std::vector<const RecordField*> fields, int run)
    : fields_(std::move(fields)) {
    s_ =
        std::make_unique<SqliteStatement>(db, "SELECT " + joined(fields_, [](const RecordField& f) {
                                                  return std::string(f.column);
                                              }) + " FROM copies WHERE run = ? ORDER BY rowid");
    s_->bind(1, run);
    // Each field's column by name: the statement's columns are the fields', in their order.
    for (size_t i = 0; i < fields_.size(); ++i)
        if (s_->column_name(int(i)) != fields_[i]->column)
            throw std::logic_error("copies: column " + std::to_string(i) + " is " +
                                   s_->column_name(int(i)) + ", not " + fields_[i]->column);
    for (const RecordField* f : fields_) {
        int gate = -1;
        if (const char* column = gate_column(*f))
            for (size_t i = 0; i < fields_.size(); ++i)
                if (std::string(fields_[i]->column) == column) gate = int(i);
        gates_.push_back(gate);
    }
}

CopiesSelect::~CopiesSelect() = default;

bool CopiesSelect::step() { return s_->step(); }

Record CopiesSelect::record(RunResult& run) const {
    Record r;
    for (size_t i = 0; i < fields_.size(); ++i) {
        const RecordField& f = *fields_[i];
        const int col = int(i);
        if (gates_[i] >= 0 && s_->is_null(gates_[i])) continue;    // not a block / watched copy
        if (f.null_when[0] != '\0' && s_->is_null(col)) continue;  // Record's default
        f.from_sql(*s_, col, r, run);
    }
    return r;
}

}  // namespace xfer
