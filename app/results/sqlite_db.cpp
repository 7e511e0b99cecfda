#include "results/sqlite_db.hpp"

#include <sqlite3.h>
#include <sys/resource.h>

#include <cstring>
#include <string>
#include <stdexcept>

namespace xfer {
namespace {

// What failed in an I/O error SQLite gives without the system's reason (a write cut short by
// the file size limit leaves errno 0): "a write failed", and the limit where one is set. Under
// `ulimit -f 40` a plan said only "disk I/O error" (issue 54, item 13).
std::string io_failure_detail(sqlite3* db) {
    std::string what;
    const int code = sqlite3_extended_errcode(db);
    for (const auto& [io, said] : {std::pair{SQLITE_IOERR_WRITE, "a write failed"},
                                   std::pair{SQLITE_IOERR_FSYNC, "an fsync failed"},
                                   std::pair{SQLITE_IOERR_TRUNCATE, "truncating a file failed"},
                                   std::pair{SQLITE_IOERR_SHMSIZE, "sizing a file failed"},
                                   std::pair{SQLITE_IOERR_READ, "a read failed"}})
        if (code == io) what = said;
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        what += (what.empty() ? "" : "; ") + std::string("the file size limit (ulimit -f) is ") +
                std::to_string(limit.rlim_cur / 1024) + " KiB";
    return what;
}

// SQLite's message, and for a failed read or write the system's reason behind it: "disk I/O
// error" alone hides "File too large" (ulimit -f) or "No space left on device".
std::string why_failed(sqlite3* db) {
    if (!db) return "out of memory";
    std::string why = sqlite3_errmsg(db);
    const int code = sqlite3_errcode(db);
    const int err = sqlite3_system_errno(db);
    if (err != 0 && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
        why += std::string(" (") + std::strerror(err) + ")";
    else if (code == SQLITE_IOERR || code == SQLITE_FULL)
        if (const std::string detail = io_failure_detail(db); !detail.empty())
            why += " (" + detail + ")";
    return why;
}

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& doing) {
    throw std::runtime_error(path + ": " + doing + ": " + why_failed(db));
}

}  // namespace

SqliteDb::SqliteDb(const std::string& path, bool read_only) : path_(path) {
    // NOMUTEX: one connection is used by one thread at a time (the recorder holds its own
    // lock); SQLite's per-call mutexes cost ~15% of writing a million rows.
    // A database xferlab writes is never reached through a link (NOFOLLOW); one it reads may
    // be (`report LINK`).
    const int flags =
        SQLITE_OPEN_NOMUTEX |
        (read_only ? SQLITE_OPEN_READONLY
                   : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW);
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string why = why_failed(db_);
        sqlite3_close(db_);
        db_ = nullptr;
        throw std::runtime_error(path + ": cannot open: " + why);
    }
    // A database written by another process (a worker, a reader) may be busy for a moment.
    sqlite3_busy_timeout(db_, 5000);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        sqlite3_free(error);  // the same text as sqlite3_errmsg, which why_failed extends
        throw std::runtime_error(path_ + ": " + why_failed(db_));
    }
}

void SqliteDb::rollback_if_open() noexcept {
    if (db_ && !sqlite3_get_autocommit(db_))
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

SqliteStatement::SqliteStatement(const SqliteDb& db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), int(sql.size()), &stmt_, nullptr) != SQLITE_OK)
        fail(db.handle(), db.path(), "preparing \"" + sql.substr(0, 40) + "...\"");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bind(int i, int64_t v) {
    if (sqlite3_bind_int64(stmt_, i, v) != SQLITE_OK) fail(db_.handle(), db_.path(), "bind");
    return *this;
}

SqliteStatement& SqliteStatement::bind(int i, const std::string& v) {
    if (sqlite3_bind_text(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        fail(db_.handle(), db_.path(), "bind");
    return *this;
}

SqliteStatement& SqliteStatement::bind_null(int i) {
    if (sqlite3_bind_null(stmt_, i) != SQLITE_OK) fail(db_.handle(), db_.path(), "bind");
    return *this;
}

int SqliteStatement::parameter(const std::string& name) const {
    const int i = sqlite3_bind_parameter_index(stmt_, name.c_str());
    if (i == 0) throw std::runtime_error(db_.path() + ": the statement has no parameter " + name);
    return i;
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_.handle(), db_.path(), "step");
}

void SqliteStatement::run() {
    while (step()) {
    }
    reset();
}

void SqliteStatement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::string SqliteStatement::column_name(int col) const {
    const char* name = sqlite3_column_name(stmt_, col);
    return name ? name : "column " + std::to_string(col);
}

namespace {

// A value as a refusal names it: "text ('abc')", "a blob of 8 bytes", "a float (1.5)", "NULL".
std::string value_described(sqlite3_stmt* stmt, int col) {
    switch (sqlite3_column_type(stmt, col)) {
        case SQLITE_NULL:
            return "NULL";
        case SQLITE_FLOAT:
            return "a float (" + std::to_string(sqlite3_column_double(stmt, col)) + ")";
        case SQLITE_BLOB:
            return "a blob of " + std::to_string(sqlite3_column_bytes(stmt, col)) + " bytes";
        case SQLITE_TEXT: {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
            std::string text(p ? p : "", size_t(sqlite3_column_bytes(stmt, col)));
            if (text.size() > 40) text = text.substr(0, 40) + "...";
            return "text ('" + text + "')";
        }
        default:
            return "an integer";
    }
}

}  // namespace

int64_t SqliteStatement::integer(int col) const {
    if (sqlite3_column_type(stmt_, col) != SQLITE_INTEGER)
        throw std::runtime_error(column_name(col) + " holds " + value_described(stmt_, col) +
                                 ", where xferlab writes an integer");
    return sqlite3_column_int64(stmt_, col);
}

std::string SqliteStatement::text(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_BLOB)
        throw std::runtime_error(column_name(col) + " holds " + value_described(stmt_, col) +
                                 ", where xferlab writes text");
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           size_t(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}

int SqliteStatement::columns() const { return sqlite3_column_count(stmt_); }

bool SqliteStatement::is_null(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

}  // namespace xfer
