// libFuzzer target: the fuzz input is a list of edits to a valid results.sqlite, one per line,
// which are made to a fresh copy of it before it is read as `report` reads it
// (read_record_store, then every reporter). A crafted store is one UPDATE away from an
// impossible value (issue 48: every copy's worker set to 10^9), so the edits are row edits:
//   TABLE.COLUMN ROWID VALUE   set one cell: VALUE is an integer, a real, null, or text
//   -TABLE ROWID               delete a row
//   +TABLE ROWID               add a copy of a row (another run, copy, thread, meta key, ...)
// Table and column names are letters and '_' only and every value is bound, never spliced
// into SQL: no input can reach another file (ATTACH, VACUUM INTO) or run for long. Seeds:
// tests/fuzz/corpus/results_sqlite/; tests/fuzz/results.dict names the tables and columns.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "fuzz_results_common.hpp"
#include "results/record_store.hpp"
#include "results/sqlite_db.hpp"

namespace fs = std::filesystem;
using namespace xfer;

namespace {

constexpr size_t kMaxEdits = 64;

// Two runs of the shapes a store holds: host threads, and a payload's timed blocks with device
// copies, helper threads, host activity, notes and errors.
Results base_plan() {
    Results plan;
    plan.tool_version = "fuzz";
    HostFacts host;
    host.hostname = "fuzz";
    host.logical_cpus = 2;
    plan.host = host;
    plan.scenario = {{"scenario", {{"name", "fuzz"}, {"trials", 2}}}};
    plan.planned_runs = 2;
    for (int i = 0; i < 2; ++i) {
        RunResult run;
        run.position.index = i;
        run.position.label = i == 0 ? "host" : "python";
        run.position.base_label = run.position.label;
        run.settings.launcher = run.position.label;
        run.backend_used = "host";
        run.settings.threads.count = 2;
        run.settings.transfer.bytes = 1 << 20;
        run.position.trial = 1;
        run.start_ns = 1000;
        run.end_ns = 900000;
        for (int w = 0; w < 2; ++w)
            for (int rep = -1; rep < 3; ++rep) {
                Record r;
                r.run = i;
                r.worker = w;
                r.repetition = rep;
                r.warmup = rep < 0;
                r.bytes = 1 << 20;
                r.host_start_ns = 2000 + 100000 * (rep + 1) + 30000 * w;
                r.host_end_ns = r.host_start_ns + 50000;
                r.source = i == 1 && rep == 2 ? 1 : 0;
                if (r.source) r.device_calls = 1;
                run.records.push_back(r);
            }
        ThreadInfo t;
        t.launcher = run.settings.launcher;
        t.cpus = {0, 1};
        run.threads_info = {t, t};
        run.threads_info[1].worker = 1;
        if (i == 1) {
            run.copy_sources = {"numpy copy"};
            run.device_copies = {DeviceCopy{7, 0, 2, 3000, 4000, 1 << 20, 0, 1, "HtoD", "a", "b"}};
            run.helper_threads = {HelperThread{t, {{3000, 5000}}, 0, {1, 1 << 20, 10, 2, 3}}};
            run.host_activity = HostActivity{"copies", 800000, 2, 1.5, 1.0, 0.5, 0.0};
            run.notes = {"a note"};
            run.errors = {"an error"};
            run.status = RunStatus::failed;
        }
        plan.runs.push_back(run);
    }
    return plan;
}

// A folder of this process's own, removed when it exits.
struct FuzzFolder {
    // In memory where the machine has /dev/shm: the store is copied for every input.
    fs::path dir =
        (fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path()) /
        ("xfer-fuzz-sqlite-" + std::to_string(::getpid()));
    FuzzFolder() { fs::create_directories(dir); }
    ~FuzzFolder() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// The base store, written once per process.
const fs::path& base_store() {
    static const FuzzFolder folder;
    static const fs::path path = [] {
        const fs::path dir = folder.dir;
        const fs::path file = dir / "base.sqlite";
        const Results plan = base_plan();
        RecordStore store(file.string());
        store.write_plan(plan);
        for (const RunResult& run : plan.runs) store.add_run(run);
        store.write_analysis(plan, {}, nlohmann::json::object());
        store.end_plan();
        return file;
    }();
    return path;
}

bool plain_name(const std::string& s) {
    return !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos;
}

void bind_value(SqliteStatement& s, int i, const std::string& v) {
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (v == "null") {
        s.bind_null(i);
    } else if (!v.empty() && *end == '\0') {
        s.bind(i, int64_t(n));
    } else {
        s.bind(i, v);  // text, also a real: SQLite's column affinity converts it
    }
}

// One edit line; SQLite's refusals (no such table or column, a constraint) are ignored.
void apply_edit(const SqliteDb& db, const std::string& line) {
    std::istringstream in(line);
    std::string target, value;
    int64_t rowid = 0;
    if (!(in >> target >> rowid)) return;
    std::getline(in >> std::ws, value);
    try {
        if ((target[0] == '-' || target[0] == '+') && plain_name(target.substr(1))) {
            const std::string table = target.substr(1);
            const std::string sql = target[0] == '-' ? "DELETE FROM " + table + " WHERE rowid = ?"
                                                     : "INSERT INTO " + table + " SELECT * FROM " +
                                                           table + " WHERE rowid = ?";
            SqliteStatement(db, sql).bind(1, rowid).run();
            return;
        }
        const size_t dot = target.find('.');
        if (dot == std::string::npos) return;
        const std::string table = target.substr(0, dot), column = target.substr(dot + 1);
        if (!plain_name(table) || !plain_name(column)) return;
        SqliteStatement s(db, "UPDATE " + table + " SET " + column + " = ? WHERE rowid = ?");
        bind_value(s, 1, value);
        s.bind(2, rowid).run();
    } catch (const std::exception&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const fs::path work = base_store().parent_path() / "work.sqlite";
    fs::copy_file(base_store(), work, fs::copy_options::overwrite_existing);
    {
        // One transaction, never synced: the edits are rewritten for every input.
        SqliteDb db(work.string(), false);
        db.exec("PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY; BEGIN");
        std::istringstream lines(input);
        std::string line;
        for (size_t n = 0; n < kMaxEdits && std::getline(lines, line); ++n) apply_edit(db, line);
        db.exec("COMMIT");
    }
    return xfer::fuzz::read_then_report([&] { return read_record_store(work.string()); });
}
