// ResultsFolderWriter, the one lifecycle of a results folder's writers: each writer is begun
// once, given every completed run once and finished once (nothing is rewritten per run); a
// writer whose write failed is called no more, its failure said once; a run past
// inline_records keeps its records in results.sqlite only; a lost folder gets nothing more.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "results/file_at_finish.hpp"
#include "results/record_store.hpp"
#include "results/results_folder_writer.hpp"
#include "results/serialize.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer;

namespace {

// Counts what it is given; throws from the call named in `fail_at` ("add_run", "finish").
struct Calls {
    int begin = 0, add_run = 0, finish = 0, release = 0;
    std::vector<int> runs;  // the indices add_run got
};

class CountingWriter final : public ResultsWriter {
  public:
    CountingWriter(Calls& calls, std::string fail_at = "")
        : calls_(calls), fail_at_(std::move(fail_at)) {}
    std::string name() const override { return "counting"; }
    fs::path path() const override { return "counting.txt"; }
    void begin(const Results&) override { ++calls_.begin; }
    void add_run(const Results&, const RunResult& run) override {
        ++calls_.add_run;
        calls_.runs.push_back(run.position.index);
        if (fail_at_ == "add_run") throw std::runtime_error("disk full in add_run");
    }
    void release() override { ++calls_.release; }
    bool finish(const Results&) override {
        ++calls_.finish;
        if (fail_at_ == "finish") throw std::runtime_error("disk full in finish");
        return true;
    }

  private:
    Calls& calls_;
    std::string fail_at_;
};

RunResult run_of(int index, size_t copies = 0) {
    RunResult r;
    r.position.index = index;
    r.position.label = "run " + std::to_string(index);
    r.settings.launcher = "host";
    for (size_t i = 0; i < copies; ++i) {
        Record rec;
        rec.worker = 0;
        rec.repetition = int(i);
        rec.bytes = 4096;
        rec.host_start_ns = int64_t(i) * 10;
        rec.host_end_ns = int64_t(i) * 10 + 5;
        r.records.push_back(rec);
    }
    return r;
}

// The plan of `runs` runs through `folder`, as execute_plan drives it.
void run_plan(ResultsFolderWriter& folder, Results& results, int runs, size_t copies = 0) {
    results.planned_runs = runs;
    folder.begin(results);
    for (int i = 0; i < runs; ++i) {
        RunResult r = run_of(i, copies);
        folder.add_run(results, r);
        results.runs.push_back(std::move(r));
    }
}

std::vector<std::unique_ptr<ResultsWriter>> one(std::unique_ptr<ResultsWriter> w) {
    std::vector<std::unique_ptr<ResultsWriter>> v;
    v.push_back(std::move(w));
    return v;
}

}  // namespace

TEST_CASE("every writer is begun once, given each run once, and finished once",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("folder-writer");
    Calls calls;
    std::ostringstream said;
    ResultsFolderWriter folder(dir, one(std::make_unique<CountingWriter>(calls)), {}, said);
    Results results;
    run_plan(folder, results, 5);
    folder.release();
    CHECK(calls.begin == 1);
    CHECK(calls.add_run == 5);
    CHECK(calls.runs == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(calls.release == 1);
    CHECK(calls.finish == 0);
    CHECK(stored_run_count((dir / "results.sqlite").string()) == 5);
    results.complete = true;
    const FolderFinished finished = folder.finish(results);
    CHECK(calls.finish == 1);
    CHECK(finished.reports == std::vector<fs::path>{"counting.txt"});
    CHECK(folder.finish(results).reports.empty());  // once only
    CHECK(calls.finish == 1);
    CHECK(said.str().empty());
    CHECK(folder.write_failure().empty());
    fs::remove_all(dir);
}

TEST_CASE("a writer whose add_run failed is called no more: said once, kept as the failure",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("folder-writer-fail");
    Calls calls;
    std::ostringstream said;
    ResultsFolderWriter folder(dir, one(std::make_unique<CountingWriter>(calls, "add_run")), {},
                               said);
    Results results;
    run_plan(folder, results, 3);
    CHECK(calls.add_run == 1);
    CHECK(folder.write_failure() == "disk full in add_run");
    CHECK(said.str() == "xferlab: disk full in add_run\n");
    // The others go on: the journal and results.sqlite hold every run.
    CHECK(stored_run_count((dir / "results.sqlite").string()) == 3);
    const FolderFinished finished = folder.finish(results);
    CHECK(calls.finish == 0);
    CHECK(finished.reports.empty());
    CHECK(finished.failures.empty());
    fs::remove_all(dir);
}

TEST_CASE("a failure at the end is named by its writer and said as a failed final write",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("folder-writer-end");
    Calls calls;
    std::ostringstream said;
    ResultsFolderWriter folder(dir, one(std::make_unique<CountingWriter>(calls, "finish")), {},
                               said);
    Results results;
    run_plan(folder, results, 2);
    const FolderFinished finished = folder.finish(results);
    CHECK(finished.failures == std::vector<std::string>{"counting: disk full in finish"});
    CHECK(said.str() == "xferlab: writing counting: disk full in finish\n");
    CHECK(folder.write_failure().empty());  // the plan's record was kept whole
    fs::remove_all(dir);
}

TEST_CASE("a run past inline_records keeps its records in results.sqlite only",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("folder-writer-apart");
    std::ostringstream said;
    ResultsFolderWriter::Options options;
    options.inline_records = 3;
    ResultsFolderWriter folder(dir, {}, options, said);
    Results results;
    run_plan(folder, results, 1, 4);
    REQUIRE(results.runs.size() == 1);
    CHECK(results.runs[0].records_file == "results.sqlite");
    // The journal's line names the file instead of holding the records.
    const auto line = nlohmann::json::parse(xfer::test::slurp(dir / "journal.jsonl"));
    CHECK(line["records_file"] == "results.sqlite");
    CHECK_FALSE(line.contains("records"));
    CHECK(line["record_count"] == 4);
    Results back = read_record_store((dir / "results.sqlite").string());
    REQUIRE(back.runs.size() == 1);
    CHECK(back.runs[0].records.size() == 4);
    fs::remove_all(dir);
}

TEST_CASE("a folder that is no longer this run's gets nothing more, said once",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("folder-writer-lost");
    Calls calls;
    std::ostringstream said;
    bool lost = false;
    ResultsFolderWriter::Options options;
    options.folder_check = [&lost] { return lost ? std::string("the folder moved") : ""; };
    ResultsFolderWriter folder(dir, one(std::make_unique<CountingWriter>(calls)), options, said);
    Results results;
    run_plan(folder, results, 1);
    lost = true;
    RunResult r = run_of(1);
    folder.add_run(results, r);
    folder.add_run(results, r);
    CHECK(calls.add_run == 1);
    CHECK(said.str() == "xferlab: the folder moved\n");
    CHECK(folder.write_failure() == "the folder moved");
    const FolderFinished finished = folder.finish(results);
    CHECK(finished.folder_lost == "the folder moved");
    CHECK(calls.finish == 0);
    CHECK(stored_run_count((dir / "results.sqlite").string()) == 1);
    fs::remove_all(dir);
}

TEST_CASE("a file written at the end is written whole, or left out with its note",
          "[results][folder_writer]") {
    const fs::path dir = xfer::test::fresh_temp_dir("file-at-finish");
    bool leave_out = false;
    FileAtFinish file("text", dir / "file.txt",
                      [&](const Results& r, std::string& note) -> std::optional<std::string> {
                          if (leave_out) {
                              note = "left out";
                              return std::nullopt;
                          }
                          return std::to_string(r.runs.size()) + " runs\n";
                      });
    Results results;
    results.runs.resize(2);
    file.add_run(results, results.runs[0]);
    CHECK_FALSE(fs::exists(dir / "file.txt"));  // nothing per run
    CHECK(file.finish(results));
    CHECK(xfer::test::slurp(dir / "file.txt") == "2 runs\n");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    leave_out = true;
    CHECK_FALSE(file.finish(results));
    CHECK(file.note() == "left out");
    fs::remove_all(dir);
}
