// Writing results.sqlite (record_store.hpp). Columns carry the names results.json uses
// (serialize.cpp); values that mean "unknown" there (-1 device times, device_timing "none")
// are NULL here, which also keeps a host copy's row small (~60 bytes).
#include "results/record_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

#include "results/copies_table.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"
#include "util/no_follow.hpp"

namespace xfer {

using nlohmann::json;

namespace {

// The tables before copies, whose columns are the record fields' (copies_table.hpp), and
// those after it: the order sqlite_master has always listed them in.
constexpr const char* kTablesBeforeCopies = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(
    run INTEGER PRIMARY KEY, label TEXT, launcher TEXT, backend TEXT, threads INTEGER,
    bytes_per_copy INTEGER, direction TEXT, host_memory TEXT, sweep_point TEXT,
    scaling_key TEXT, trial INTEGER, base_label TEXT, settings TEXT, payload TEXT,
    status TEXT, start_ns INTEGER, end_ns INTEGER, records_file TEXT, copy_count INTEGER,
    timed_blocks TEXT, host_activity TEXT, stray_threads TEXT);
CREATE TABLE threads(
    run INTEGER NOT NULL, kind TEXT NOT NULL, launcher TEXT, worker INTEGER, pid INTEGER,
    tid INTEGER, name TEXT, hostname TEXT, stack_size INTEGER, guard_size INTEGER,
    blocked_signals TEXT, cpus TEXT, policy TEXT, priority INTEGER, nice INTEGER,
    numa_node INTEGER, python_thread INTEGER, gil_held INTEGER, busy TEXT);
)sql";

constexpr const char* kTablesAfterCopies = R"sql(CREATE TABLE device_copies(
    run INTEGER NOT NULL, correlation_id INTEGER, worker INTEGER, repetition INTEGER,
    start_ns INTEGER, end_ns INTEGER, size_bytes INTEGER, device INTEGER, stream INTEGER,
    kind TEXT, src TEXT, dst TEXT);
CREATE TABLE notes(run INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE analysis(run INTEGER PRIMARY KEY, analysis TEXT NOT NULL);
)sql";

constexpr const char* kIndexes = R"sql(
CREATE INDEX copies_by_run ON copies(run);
CREATE INDEX threads_by_run ON threads(run);
CREATE INDEX notes_by_run ON notes(run);
CREATE INDEX device_copies_by_run ON device_copies(run);
)sql";

void bind_or_null(SqliteStatement& s, int i, int64_t v, bool known) {
    if (known) {
        s.bind(i, v);
    } else {
        s.bind_null(i);
    }
}

// Each record's fields bound by their columns' names (copies_table.hpp).
void insert_copies(const SqliteDb& db, const RunResult& run) {
    CopiesInsert insert(db);
    for (const Record& r : run.records) insert.add(r, run);
}

void insert_device_copies(const SqliteDb& db, const RunResult& run) {
    SqliteStatement s(db, "INSERT INTO device_copies VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const DeviceCopy& c : run.device_copies) {
        s.bind(1, run.position.index)
            .bind(2, c.correlation)
            .bind(3, c.worker)
            .bind(4, c.repetition);
        s.bind(5, c.start_ns).bind(6, c.end_ns).bind(7, int64_t(c.bytes)).bind(8, c.device);
        s.bind(9, c.stream).bind(10, c.kind).bind(11, c.src).bind(12, c.dst);
        s.run();
    }
}

// `busy`: a helper thread's busy spans as JSON ({"busy": [[start, end], ...], "dropped": n}),
// NULL for workers.
void insert_thread(SqliteStatement& s, int run, const char* kind, const ThreadInfo& t,
                   const std::string* busy) {
    {
        s.bind(1, run).bind(2, kind).bind(3, t.launcher).bind(4, t.worker).bind(5, t.pid);
        s.bind(6, t.tid).bind(7, t.name).bind(8, t.hostname).bind(9, int64_t(t.stack_size));
        s.bind(10, int64_t(t.guard_size))
            .bind(11, compact_json(json(t.blocked_signals)))
            .bind(12, compact_json(t.cpus));
        s.bind(13, t.policy).bind(14, t.priority).bind(15, t.nice).bind(16, t.numa_node);
        s.bind(17, t.python_thread);
        bind_or_null(s, 18, t.gil_held.value_or(false), t.gil_held.has_value());
        if (busy)
            s.bind(19, *busy);
        else
            s.bind_null(19);
        s.run();
    }
}

constexpr const char* kInsertThread =
    "INSERT INTO threads VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

void insert_threads(const SqliteDb& db, int run, const std::vector<ThreadInfo>& workers,
                    const std::vector<HelperThread>& helpers) {
    SqliteStatement s(db, kInsertThread);
    for (const ThreadInfo& t : workers) insert_thread(s, run, "worker", t, nullptr);
    for (const HelperThread& h : helpers) {
        const std::string busy =
            compact_json(json{{"busy", h.busy}, {"dropped", h.busy_dropped}, {"work", h.work}});
        insert_thread(s, run, "helper", h.thread, &busy);
    }
}

void insert_notes(const SqliteDb& db, const RunResult& run) {
    SqliteStatement s(db, "INSERT INTO notes VALUES(?,?,?)");
    const int index = run.position.index;
    for (const auto& e : run.errors) s.bind(1, index).bind(2, "error").bind(3, e).run();
    for (const auto& n : run.notes) s.bind(1, index).bind(2, "note").bind(3, n).run();
}

// Columns named, in the order of the values bound below: the table's order puts trial and
// base_label (schema 4) beside the other run keys.
constexpr const char* kInsertRun =
    "INSERT INTO runs(run, label, launcher, backend, threads, bytes_per_copy, direction, "
    "host_memory, sweep_point, scaling_key, trial, base_label, settings, payload, status, "
    "start_ns, end_ns, records_file, copy_count, timed_blocks, host_activity, stray_threads) "
    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

void bind_json_or_null(SqliteStatement& s, int i, const std::optional<json>& j) {
    if (j) {
        s.bind(i, compact_json(*j));
    } else {
        s.bind_null(i);
    }
}

std::optional<json> payload_json(const RunResult& r) {
    if (!r.payload) return std::nullopt;
    return json{{"name", r.payload->name},
                {"path", r.payload->path},
                {"folder", r.payload->folder},
                {"sha256", r.payload->sha256}};
}

// The labels of the payload's w.timed() blocks and its own verification (NULL: none).
std::optional<json> timed_blocks_json(const RunResult& r) {
    if (r.copy_sources.empty() && r.payload_verified.empty()) return std::nullopt;
    return json{{"copy_sources", r.copy_sources},
                {"payload_verified", worker_texts_to_json(r.payload_verified)}};
}

// The run keys as results.json has them (serialize.hpp: run_keys_json), then the rest.
void insert_run(const SqliteDb& db, const RunResult& r) {
    const RunPosition& at = r.position;
    const TransferSpec& transfer = r.settings.transfer;
    SqliteStatement s(db, kInsertRun);
    s.bind(1, at.index).bind(2, at.label).bind(3, r.settings.launcher).bind(4, r.backend_used);
    s.bind(5, r.settings.threads.count).bind(6, int64_t(transfer.bytes));
    s.bind(7, to_string(transfer.direction)).bind(8, to_string(transfer.host_memory));
    s.bind(9, compact_json(json(at.sweep_point))).bind(10, at.scaling_key);
    s.bind(11, at.trial).bind(12, at.base_label);
    s.bind(13, compact_json(settings_json(r.settings, at)));
    bind_json_or_null(s, 14, payload_json(r));
    s.bind(15, std::string(to_string(r.status))).bind(16, r.start_ns).bind(17, r.end_ns);
    s.bind(18, r.records_file).bind(19, int64_t(r.records.size()));
    bind_json_or_null(s, 20, timed_blocks_json(r));
    bind_json_or_null(s, 21,
                      r.host_activity ? std::optional(json(*r.host_activity)) : std::nullopt);
    bind_json_or_null(s, 22,
                      r.stray_threads.empty() ? std::nullopt : std::optional(json(r.stray_threads)));
    s.run();
}

}  // namespace

namespace {

// The empty file SQLite then makes a database of: created here, exclusively and not through
// a link, because SQLite's own create follows a dangling link to wherever it points.
const std::string& created_exclusively(const std::string& path, bool create) {
    if (!create) return path;
    const OpenedNoFollow opened = open_no_follow(path, O_WRONLY | O_CREAT | O_EXCL);
    if (opened.fd < 0) throw std::runtime_error(open_failure(path, opened));
    ::close(opened.fd);
    return path;
}

}  // namespace

RecordStore::RecordStore(const std::string& path, bool create)
    : db_(std::make_unique<SqliteDb>(created_exclusively(path, create), false)) {
    // NORMAL sync: no fsync per commit beyond what WAL needs (a power cut may lose the last
    // runs, a crash none); set first, so that creating the file costs fewer fsyncs too.
    db_->exec("PRAGMA synchronous=NORMAL");
    if (!create) return;
    // WAL: a committed run survives the process being killed.
    db_->exec("PRAGMA journal_mode=WAL");
    db_->transaction([&] {
        db_->exec(kTablesBeforeCopies + copies_table_sql() + kTablesAfterCopies + kIndexes);
    });
}

RecordStore::~RecordStore() = default;

void RecordStore::write_plan(const Results& plan) {
    const std::vector<std::pair<const char*, json>> rows = {
        {"format", "xferlab results"},
        {"schema_version", kRecordStoreSchema},
        {"results_schema_version", plan.schema_version},
        {"tool_version", plan.tool_version},
        {"git_describe", plan.git_describe},
        {"host", host_json(plan.host)},
        {"devices", devices_json(plan.devices)},
        {"scenario", plan.scenario},
        {"interrupted", plan.interrupted},
        {"complete", plan.complete},
        {"planned_runs", plan.planned_runs},
        {"started_wall_ns", plan.started_wall_ns},
        {"sizing", plan.sizing},
        {"notes", plan.notes},
        {"command", command_to_json(plan.command)},
    };
    db_->transaction([&] {
        SqliteStatement s(*db_, "INSERT OR REPLACE INTO meta VALUES(?,?)");
        for (const auto& [key, value] : rows) s.bind(1, key).bind(2, compact_json(value)).run();
    });
}

void RecordStore::add_run(const RunResult& run) {
    db_->transaction([&] {
        insert_run(*db_, run);
        insert_threads(*db_, run.position.index, run.threads_info, run.helper_threads);
        insert_notes(*db_, run);
        insert_copies(*db_, run);
        insert_device_copies(*db_, run);
    });
}

void RecordStore::end_plan() { db_->exec("PRAGMA journal_mode=DELETE"); }

void RecordStore::write_analysis(const Results& results, const std::vector<json>& per_run,
                                 const json& summary) {
    db_->transaction([&] {
        SqliteStatement s(*db_, "INSERT OR REPLACE INTO analysis VALUES(?,?)");
        for (size_t i = 0; i < per_run.size() && i < results.runs.size(); ++i)
            s.bind(1, results.runs[i].position.index).bind(2, compact_json(per_run[i])).run();
        SqliteStatement m(*db_, "INSERT OR REPLACE INTO meta VALUES('summary',?)");
        m.bind(1, compact_json(summary)).run();
    });
}

}  // namespace xfer
