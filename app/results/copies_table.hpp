#pragma once
// results.sqlite's `copies` table, one column per record field (record_fields.hpp): its
// CREATE TABLE, the INSERT that binds each field by its column's name, and the SELECT that
// reads each field back by its column's name, for a store of any schema.
#include <string>
#include <vector>

#include "results/record_fields.hpp"

namespace xfer {

class SqliteDb;

// "CREATE TABLE copies(run INTEGER NOT NULL, worker INTEGER, ...);"
std::string copies_table_sql();

// Writes records into copies: every field bound to its ":column" parameter, looked up by name.
class CopiesInsert {
  public:
    explicit CopiesInsert(const SqliteDb& db);
    ~CopiesInsert();
    void add(const Record& r, const RunResult& run);

  private:
    std::unique_ptr<SqliteStatement> s_;
    std::vector<int> parameters_;  // per field of record_fields(), its parameter's index
};

// The fields a store of `schema` has a column for, in record_fields() order: each field of
// that schema or an earlier one (a store without one of them is refused: "no such column"),
// and a later field where `columns` (the store's copies columns) has it, as a store
// written by an xferlab that knew the field under the same schema number has.
std::vector<const RecordField*> copies_fields_of(int schema,
                                                 const std::vector<std::string>& columns);
// The copies table's column names in the store (PRAGMA table_info).
std::vector<std::string> copies_columns(const SqliteDb& db);

// Reads a run's records from copies, each field by its column's name.
class CopiesSelect {
  public:
    // "SELECT <each field's column> FROM copies WHERE run = <run> ORDER BY rowid".
    CopiesSelect(const SqliteDb& db, std::vector<const RecordField*> fields, int run);
    ~CopiesSelect();
    bool step();
    // The row's record. Throws naming the column: "worker holds text ('abc'), where xferlab
    // writes an integer".
    Record record(RunResult& run) const;

  private:
    std::unique_ptr<SqliteStatement> s_;
    std::vector<const RecordField*> fields_;
    std::vector<int> gates_;  // per field, its gate's column in the row (-1: none)
};

}  // namespace xfer
