#pragma once
// results.sqlite: the results data model in SQLite, for plans of millions of copies (the JSON
// form costs ~400 bytes and several microseconds per copy). One row per copy in `copies`, one
// per run in `runs`, the workers' and helpers' ThreadInfo in `threads`, errors and notes in
// `notes`, the plan (tool version, host, scenario, ...) in `meta`, the analysis in `analysis`.
// The schema and example queries are in docs/reading-reports.md ("results.sqlite").
//
// Each completed run is one transaction in WAL mode: a crash, SIGKILL or os._exit loses at
// most the run in progress, and the file stays consistent (PRAGMA integrity_check).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

inline constexpr const char* kRecordStoreFile = "results.sqlite";
// 2: copies gained source, device_calls, gil_held_calls, failed (payloads' w.timed blocks)
// and the device_copies table. 3: runs gained host_activity. 4: runs gained trial and
// base_label, meta the plan's notes: the store holds everything results.json holds. 5: runs
// gained stray_threads (threads left running by earlier runs, alive while the run measured).
// 6: copies gained copy_kind, src_kind, dst_kind, host_node (a watched program's copies).
// 7: copies gained gap ([threads] gap_stages / gap_counters). Files of schemas 1 to 6 are
// still read.
inline constexpr int kRecordStoreSchema = 7;

class SqliteDb;

class RecordStore {
  public:
    // Creates the database at `path` (schema, WAL), or with `create` false opens the one there
    // (to add the analysis). Throws std::runtime_error naming the file.
    explicit RecordStore(const std::string& path, bool create = true);
    ~RecordStore();
    RecordStore(const RecordStore&) = delete;
    RecordStore& operator=(const RecordStore&) = delete;

    // The plan's header: everything of `plan` but its runs (rewritten when it changes).
    void write_plan(const Results& plan);
    // One completed run with its records, threads and notes, in one transaction.
    void add_run(const RunResult& run);
    // The plan is over: back from WAL to a rollback journal, so that the file is one file
    // again and readers (read-only, `xferlab report`) leave no -wal and -shm beside it.
    void end_plan();
    // Each run's analysis (`per_run[i]` belongs to `results.runs[i]`) and the summary.
    void write_analysis(const Results& results, const std::vector<nlohmann::json>& per_run,
                        const nlohmann::json& summary);

  private:
    std::unique_ptr<SqliteDb> db_;
};

// The whole Results in results.sqlite at `path`: to_json of it is what results.json holds
// (runs past output.inline_records keep records_file, with their records loaded). Throws
// std::runtime_error saying what is wrong: not a database, corrupt, or a database that is not an
// xferlab results.sqlite.
Results read_record_store(const std::string& path);

// How many runs the store at `path` holds (what a failed plan's last message counts). Throws
// like read_record_store.
int64_t stored_run_count(const std::string& path);

// Fills the records of every run in `results` whose records_file names the store (results.json
// past output.inline_records) from the store at `path`. Throws like read_record_store, and
// when the store lacks one of those runs.
void load_stored_records(const std::string& path, Results& results);

}  // namespace xfer
