// Reading results.sqlite back into Results (record_store.hpp): the inverse of
// record_store.cpp, so that `xferlab report results.sqlite` re-analyses exactly what ran.
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "results/checked_integer.hpp"
#include "results/copies_table.hpp"
#include "results/record_store.hpp"
#include "results/results_checks.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"

namespace xfer {

using nlohmann::json;

namespace {

// A column that holds JSON text (settings, cpus, busy spans...), parsed; an error names the
// column: a bad cell gave nlohmann's raw "[json.exception.parse_error.101] ..." naming no file.
json json_cell(const SqliteStatement& s, int col) {
    const std::string text = s.text(col);
    if (text.empty()) return json();
    try {
        return json::parse(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(s.column_name(col) + " is not JSON (" + json_error_text(e.what()) +
                                 ")");
    }
}

// `read` with what it reads named in front of whatever it throws: "run 0, record 3: worker
// holds text ('abc'), where xferlab writes an integer". JSON errors without the library's
// "[json.exception...]" prefix.
template <typename Read>
auto naming(const std::string& what, Read&& read) {
    try {
        return read();
    } catch (const std::exception& e) {
        throw std::runtime_error(what + ": " + json_error_text(e.what()));
    }
}

// A size column: SQLite integers are signed, and -1 read as an unsigned size is 2^64-1.
uint64_t size_column(const SqliteStatement& s, int col, const char* what) {
    const int64_t v = s.integer(col);
    if (v < 0)
        throw std::runtime_error(std::string(what) + " " + std::to_string(v) + " is negative");
    return uint64_t(v);
}

// meta, checked to be an xferlab results.sqlite before anything else is read.
std::map<std::string, json> read_meta(const SqliteDb& db) {
    std::map<std::string, json> meta;
    {
        SqliteStatement has(db, "SELECT count(*) FROM sqlite_master WHERE name='meta'");
        has.step();
        if (has.integer(0) == 0)
            throw std::runtime_error(db.path() +
                                     " is an SQLite database but not an xferlab results.sqlite "
                                     "(it has no meta table)");
    }
    SqliteStatement s(db, "SELECT key, value FROM meta");
    while (s.step()) {
        const std::string key = s.text(0);
        meta[key] =
            naming(db.path() + ": its meta table's " + key, [&] { return json_cell(s, 1); });
    }
    if (meta["format"] != "xferlab results")
        throw std::runtime_error(db.path() +
                                 " is an SQLite database but not an xferlab results.sqlite "
                                 "(its meta table does not say format \"xferlab results\")");
    // Compared as written: an int() of 2^32 + 1 would be schema 1.
    const json& version = meta["schema_version"];
    const bool known = version.is_number_integer() && version.get<int64_t>() >= 1 &&
                       version.get<int64_t>() <= kRecordStoreSchema;
    if (!known)
        throw std::runtime_error(db.path() + " has results.sqlite schema " + version.dump() +
                                 "; this xferlab reads schemas 1 to " +
                                 std::to_string(kRecordStoreSchema));
    return meta;
}

// A run's records, each field by its column's name (copies_table.hpp): the columns of the
// store's schema, and a later field's where the store has its column.
void read_copies(const SqliteDb& db, RunResult& run, int schema) {
    CopiesSelect s(db, copies_fields_of(schema, copies_columns(db)), run.position.index);
    while (s.step()) {
        const std::string what = "run " + std::to_string(run.position.index) + ", record " +
                                 std::to_string(run.records.size());
        run.records.push_back(naming(what, [&] { return s.record(run); }));
    }
}

void read_device_copies(const SqliteDb& db, RunResult& run) {
    SqliteStatement s(db,
                      "SELECT correlation_id, worker, repetition, start_ns, end_ns, size_bytes, "
                      "device, stream, kind, src, dst FROM device_copies WHERE run = ? "
                      "ORDER BY rowid");
    s.bind(1, run.position.index);
    while (s.step()) {
        const std::string what = "run " + std::to_string(run.position.index) + ", device copy " +
                                 std::to_string(run.device_copies.size());
        run.device_copies.push_back(naming(what, [&] {
            DeviceCopy c;
            c.correlation = s.integer_as<uint32_t>(0);
            c.worker = s.integer_as<int>(1);
            c.repetition = s.integer_as<int>(2);
            c.start_ns = s.integer(3);
            c.end_ns = s.integer(4);
            c.bytes = size_column(s, 5, "size_bytes");
            c.device = s.integer_as<int>(6);
            c.stream = s.integer_as<uint32_t>(7);
            c.kind = s.text(8);
            c.src = s.text(9);
            c.dst = s.text(10);
            return c;
        }));
    }
}

ThreadInfo thread_from(const SqliteStatement& s) {
    ThreadInfo t;
    t.launcher = s.text(0);
    t.worker = s.integer_as<int>(1);
    t.pid = s.integer_as<int>(2);
    t.tid = s.integer_as<int>(3);
    t.name = s.text(4);
    t.hostname = s.text(5);
    t.stack_size = s.integer_as<size_t>(6);
    t.guard_size = s.integer_as<size_t>(7);
    json_cell(s, 8).get_to(t.blocked_signals);
    json_cell(s, 9).get_to(t.cpus);
    t.policy = s.text(10);
    t.priority = s.integer_as<int>(11);
    t.nice = s.integer_as<int>(12);
    t.numa_node = s.integer_as<int>(13);
    t.python_thread = s.integer(14) != 0;
    if (!s.is_null(15)) t.gil_held = s.integer(15) != 0;
    return t;
}

void read_threads_and_notes(const SqliteDb& db, RunResult& run) {
    SqliteStatement t(db,
                      "SELECT launcher, worker, pid, tid, name, hostname, stack_size, guard_size, "
                      "blocked_signals, cpus, policy, priority, nice, numa_node, python_thread, "
                      "gil_held, kind, busy FROM threads WHERE run = ? ORDER BY rowid");
    t.bind(1, run.position.index);
    for (size_t row = 0; t.step(); ++row) {
        naming("run " + std::to_string(run.position.index) + ", thread " + std::to_string(row),
               [&] {
                   if (t.text(16) != "helper") {
                       run.threads_info.push_back(thread_from(t));
                       return;
                   }
                   HelperThread h;
                   h.thread = thread_from(t);
                   if (!t.is_null(17)) {
                       const json busy = json_cell(t, 17);
                       busy.at("busy").get_to(h.busy);
                       busy.at("dropped").get_to(h.busy_dropped);
                       if (auto w = busy.find("work"); w != busy.end()) w->get_to(h.work);
                   }
                   run.helper_threads.push_back(std::move(h));
               });
    }
    SqliteStatement n(db, "SELECT kind, text FROM notes WHERE run = ? ORDER BY rowid");
    n.bind(1, run.position.index);
    while (n.step()) (n.text(0) == "error" ? run.errors : run.notes).push_back(n.text(1));
}

// The runs columns of every schema, then those later schemas added, NULL where the file's
// schema has none: each column keeps its position (run_from) whatever the schema.
std::string run_columns(int schema) {
    std::string columns =
        "run, label, launcher, backend, threads, bytes_per_copy, direction, host_memory, "
        "sweep_point, scaling_key, settings, payload, status, start_ns, end_ns, records_file";
    columns += schema >= 2 ? ", timed_blocks" : ", NULL";
    columns += schema >= 3 ? ", host_activity" : ", NULL";
    columns += schema >= 4 ? ", trial, base_label" : ", NULL, NULL";
    columns += schema >= 5 ? ", stray_threads" : ", NULL";
    return columns;
}

std::optional<PayloadRecord> payload_from(const SqliteStatement& s, int col) {
    if (s.is_null(col)) return std::nullopt;
    const json p = json_cell(s, col);
    return PayloadRecord{p.value("name", ""), p.value("path", ""), p.value("folder", ""),
                         p.value("sha256", "")};
}

// The row's run keys and settings in results.json's form, read as results.json is
// (serialize.hpp: read_settings_and_position). Schema 4 has the trial and base_label columns;
// before it the settings carry both since trials existed, and results from before trials have
// neither (trial 1, base_label "", as from_json reads a results.json of then).
json run_keys_of(const SqliteStatement& s) {
    json run = {{"index", s.integer(0)},
                {"label", s.text(1)},
                {"launcher", s.text(2)},
                {"threads", s.integer(4)},
                {"bytes_per_copy", size_column(s, 5, "bytes_per_copy")},
                {"direction", s.text(6)},
                {"host_memory", s.text(7)},
                {"sweep_point", json_cell(s, 8)},
                {"scaling_key", s.text(9)},
                {"settings", json_cell(s, 10)}};
    if (!s.is_null(18)) run["trial"] = s.integer(18);
    if (!s.is_null(19)) run["base_label"] = s.text(19);
    return run;
}

RunResult run_from(const SqliteStatement& s) {
    RunResult r;
    read_settings_and_position(run_keys_of(s), r);
    r.backend_used = s.text(3);
    r.payload = payload_from(s, 11);
    r.status = run_status_from(s.text(12));
    r.start_ns = s.integer(13);
    r.end_ns = s.integer(14);
    // What results.json says: its records are loaded all the same (read_record_store).
    r.records_file = s.text(15);
    if (!s.is_null(16)) {  // schema 2
        const json timed = json_cell(s, 16);
        timed.at("copy_sources").get_to(r.copy_sources);
        r.payload_verified = worker_texts_from_json(timed.at("payload_verified"));
    }
    if (!s.is_null(17)) r.host_activity = json_cell(s, 17).get<HostActivity>();  // schema 3
    if (!s.is_null(20)) json_cell(s, 20).get_to(r.stray_threads);                // schema 5
    return r;
}

// Opens `path` read-only and turns SQLite's "file is not a database" into a sentence.
std::unique_ptr<SqliteDb> open_store(const std::string& path) {
    auto db = std::make_unique<SqliteDb>(path, true);
    try {
        db->exec("SELECT count(*) FROM sqlite_master");
    } catch (const std::exception& e) {
        throw std::runtime_error(path + " is not a readable SQLite database (" + e.what() + ")");
    }
    return db;
}

// The plan's header from meta: everything of Results but its runs.
Results plan_from(const std::map<std::string, json>& meta) {
    Results r;
    try {
        r.schema_version =
            checked_integer<int>(meta.at("results_schema_version"), "results_schema_version");
        r.tool_version = meta.at("tool_version").get<std::string>();
        r.git_describe = meta.at("git_describe").get<std::string>();
        r.host = host_from_json(meta.at("host"));
        r.devices = devices_from_json(meta.at("devices"));
        r.scenario = meta.at("scenario");
        r.interrupted = meta.at("interrupted").get<bool>();
        r.complete = meta.at("complete").get<bool>();
        r.planned_runs = checked_integer<int>(meta.at("planned_runs"), "planned_runs");
        r.started_wall_ns = checked_integer<int64_t>(meta.at("started_wall_ns"), "started_wall_ns");
        r.sizing = meta.at("sizing");
        // Schema 4; stores written before it hold results as `run` wrote them: without notes.
        if (auto n = meta.find("notes"); n != meta.end() && n->second.is_array())
            n->second.get_to(r.notes);
        // Absent in stores written before the command line was recorded.
        if (auto c = meta.find("command"); c != meta.end())
            r.command = command_from_json(c->second);
    } catch (const std::exception& e) {
        throw std::runtime_error("its meta table: " + json_error_text(e.what()));
    }
    return r;
}

}  // namespace

Results read_record_store(const std::string& path) {
    const auto db = open_store(path);
    const auto meta = read_meta(*db);
    const int schema = meta.at("schema_version").get<int>();
    // Whatever is wrong past the header names the file, then the place (naming()).
    Results r = naming(path, [&] {
        Results read = plan_from(meta);
        SqliteStatement s(*db, "SELECT " + run_columns(schema) + " FROM runs ORDER BY run");
        for (size_t row = 0; s.step(); ++row)
            read.runs.push_back(
                naming("runs table, row " + std::to_string(row + 1), [&] { return run_from(s); }));
        for (RunResult& run : read.runs) {
            read_threads_and_notes(*db, run);
            read_copies(*db, run, schema);
            if (schema >= 2) read_device_copies(*db, run);
        }
        return read;
    });
    if (const std::string problem = results_problem(r); !problem.empty())
        throw std::runtime_error(path + ": " + problem);
    return r;
}

int64_t stored_run_count(const std::string& path) {
    const auto db = open_store(path);
    {  // a store whose creation failed part way holds no table yet: no run
        SqliteStatement has(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'");
        has.step();
        if (has.integer(0) == 0) return 0;
    }
    SqliteStatement s(*db, "SELECT count(*) FROM runs");
    s.step();
    return s.integer(0);
}

void load_stored_records(const std::string& path, Results& results) {
    const auto db = open_store(path);
    const int schema = read_meta(*db).at("schema_version").get<int>();
    for (RunResult& run : results.runs) {
        if (run.records_file.empty()) continue;
        // (The caller names the file: "keeps the records of its larger runs in PATH, which
        // cannot be read: ...".)
        SqliteStatement has(*db, "SELECT count(*) FROM runs WHERE run = ?");
        has.bind(1, run.position.index);
        has.step();
        if (has.integer(0) == 0)
            throw std::runtime_error(path + " does not hold run " +
                                     std::to_string(run.position.index) +
                                     ", whose records results.json says are there");
        run.records.clear();
        read_copies(*db, run, schema);
    }
}

}  // namespace xfer
