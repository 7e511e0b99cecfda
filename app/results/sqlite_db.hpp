#pragma once
// A thin RAII layer over SQLite's C API (Debian's libsqlite3): a connection and a prepared
// statement, each closed by its destructor, every failure a std::runtime_error carrying
// SQLite's own message. Only what results.sqlite needs (record_store.cpp).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "results/checked_integer.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace xfer {

class SqliteDb {
  public:
    // Opens `path` read-write (creating it) or read-only. Throws with SQLite's reason.
    SqliteDb(const std::string& path, bool read_only);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(const std::string& sql);  // statements without results
    // Ends the open transaction without its changes, if one is open: SQLite rolls some failed
    // statements back itself (a full disk), and a ROLLBACK then fails with "no transaction is
    // active", a message that would replace the failure's own. Never throws.
    void rollback_if_open() noexcept;
    // `body` in one transaction: committed when it returns, rolled back when it or the commit
    // throws, and the exception passed on as it was.
    template <typename Body>
    void transaction(Body&& body) {
        exec("BEGIN");
        try {
            body();
            exec("COMMIT");
        } catch (...) {
            rollback_if_open();
            throw;
        }
    }
    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }

  private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

class SqliteStatement {
  public:
    SqliteStatement(const SqliteDb& db, const std::string& sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    // Parameters are numbered from 1, as in SQLite.
    SqliteStatement& bind(int i, int64_t v);
    SqliteStatement& bind(int i, const std::string& v);
    SqliteStatement& bind_null(int i);
    // The index of the parameter named `name` (":worker"); throws where the statement has none.
    int parameter(const std::string& name) const;
    // One step: true while a row is available, false when done. Throws on an error.
    bool step();
    void run();    // steps a statement without results to its end, then resets it
    void reset();  // ready to bind and step again

    // Columns are numbered from 0, as in SQLite. integer() takes an INTEGER value only, and
    // text() no BLOB: a value of another type throws std::runtime_error naming the column
    // ("worker holds text ('abc'), where xferlab writes an integer"), where SQLite would read
    // text as 0 without a word. text() of NULL is "".
    int64_t integer(int col) const;
    std::string text(int col) const;
    // integer() that fits T: worker 2^32 is not read as worker 0 (checked_integer.hpp).
    template <typename T>
    T integer_as(int col) const {
        const int64_t n = integer(col);
        if (!integer_fits<T>(n))
            throw std::runtime_error(
                integer_range_problem<T>(column_name(col), std::to_string(n), n >= 0));
        return T(n);
    }
    std::string column_name(int col) const;
    bool is_null(int col) const;
    int columns() const;  // in the result rows

  private:
    const SqliteDb& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace xfer
