// Links planted in an output folder never steer a write elsewhere (issue 48, item 2): every file
// xferlab creates there is opened without following a link (and, where it creates, exclusively),
// so a link planted under one of its names leaves the link's target as it was. One test per
// file that xferlab writes into the folder, each planting a link under that file's name.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "embed/payload_output.hpp"
#include "results/atomic_file.hpp"
#include "results/folder_files.hpp"
#include "results/journal_writer.hpp"
#include "results/record_store.hpp"
#include "run/output/output_dir.hpp"
#include "run/output/output_lock.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer;

namespace {

constexpr const char* kPrecious = "the target's own bytes\n";

// A folder with `name` in it as a symbolic link to a file outside it that holds kPrecious (or,
// with `dangling`, to a path where nothing is yet).
struct PlantedLink {
    fs::path root = test::fresh_temp_dir("planted");
    fs::path dir = root / "out";
    fs::path target = root / "target";

    PlantedLink(const std::string& name, bool dangling = false) {
        fs::create_directory(dir);
        if (!dangling) std::ofstream(target) << kPrecious;
        fs::create_symlink(target, dir / name);
    }
    ~PlantedLink() { fs::remove_all(root); }

    // The target as the test left it: kPrecious, or still absent for a dangling link.
    bool target_untouched(bool dangling = false) const {
        if (dangling) return !fs::exists(target);
        return test::slurp(target) == kPrecious;
    }
};

Results one_run_plan() {
    Results plan;
    plan.tool_version = "test";
    RunResult run;
    run.position.label = "host";
    plan.runs.push_back(run);
    return plan;
}

}  // namespace

TEST_CASE("a link planted as .xferlab.lock: the lock refuses it, its target keeps its bytes",
          "[run][output][links]") {
    for (const bool dangling : {false, true}) {
        PlantedLink planted(kOutputLockFile, dangling);
        std::string owner;
        CHECK_THROWS_WITH(OutputLock::try_take(planted.dir, owner),
                          Catch::Contains("is a symbolic link"));
        CHECK(planted.target_untouched(dangling));
    }
}

TEST_CASE("a link planted as the writability probe is refused, its target kept",
          "[run][output][links]") {
    PlantedLink planted(".xferlab-write-test");
    CHECK_THROWS_WITH(prepare_output_dir(planted.dir), Catch::Contains("is a symbolic link"));
    CHECK(planted.target_untouched());
}

TEST_CASE("a link planted as journal.jsonl is never appended through", "[run][output][links]") {
    for (const bool dangling : {false, true}) {
        PlantedLink planted(kJournalFile, dangling);
        const Results plan = one_run_plan();
        JournalWriter journal(planted.dir);
        CHECK_THROWS_WITH(journal.add_run(plan, plan.runs.front()),
                          Catch::Contains("is a symbolic link"));
        CHECK(planted.target_untouched(dangling));
    }
    // Planted after the plan's first line: the next line is not appended through it either.
    for (const bool dangling : {false, true}) {
        PlantedLink planted("elsewhere", dangling);
        const Results plan = one_run_plan();
        JournalWriter journal(planted.dir);
        journal.add_run(plan, plan.runs.front());
        fs::remove(planted.dir / kJournalFile);
        fs::create_symlink(planted.target, planted.dir / kJournalFile);
        CHECK_THROWS_WITH(journal.add_run(plan, plan.runs.front()),
                          Catch::Contains("is a symbolic link"));
        CHECK(planted.target_untouched(dangling));
    }
}

TEST_CASE("a hard link planted as journal.jsonl is never appended through",
          "[run][output][links]") {
    const fs::path root = test::fresh_temp_dir("planted-hard");
    std::ofstream(root / "target") << kPrecious;
    const Results plan = one_run_plan();
    // Created by the plan's first line: a file already there is refused.
    fs::create_hard_link(root / "target", root / kJournalFile);
    CHECK_THROWS(JournalWriter(root).add_run(plan, plan.runs.front()));
    // Put in place of the journal after its first line.
    fs::remove(root / kJournalFile);
    JournalWriter journal(root);
    journal.add_run(plan, plan.runs.front());
    fs::remove(root / kJournalFile);
    fs::create_hard_link(root / "target", root / kJournalFile);
    CHECK_THROWS_WITH(journal.add_run(plan, plan.runs.front()),
                      Catch::Contains("has another name"));
    CHECK(test::slurp(root / "target") == kPrecious);
    fs::remove_all(root);
}

TEST_CASE("a link planted as results.sqlite, or as its -wal or -shm, is never written through",
          "[run][output][links]") {
    for (const std::string name : {"results.sqlite", "results.sqlite-wal", "results.sqlite-shm"})
        for (const bool dangling : {false, true}) {
            INFO(name << (dangling ? " (dangling)" : ""));
            PlantedLink planted(name, dangling);
            const Results plan = one_run_plan();
            try {
                RecordStore store((planted.dir / kRecordStoreFile).string());
                store.write_plan(plan);
                store.add_run(plan.runs.front());
                store.end_plan();
            } catch (const std::exception&) {  // refused: what matters is where nothing went
            }
            CHECK(planted.target_untouched(dangling));
        }
}

TEST_CASE("a link planted as a report file's temporary name: the target keeps its bytes",
          "[run][output][links]") {
    PlantedLink planted(".results.json.tmp." + std::to_string(::getpid()));
    write_file_atomically(planted.dir / "results.json", "{}\n");
    CHECK(planted.target_untouched());
    CHECK(fs::is_regular_file(fs::symlink_status(planted.dir / "results.json")));
    CHECK(test::slurp(planted.dir / "results.json") == "{}\n");
}

TEST_CASE("a link planted as payload-output.log is never appended through",
          "[run][output][links]") {
    PlantedLink planted(kPayloadLogFile);
    set_payload_output_log(planted.dir / kPayloadLogFile);
    write_payload_output("[payload test] ", "a line\n");
    set_payload_output_log({});
    CHECK(planted.target_untouched());
}

TEST_CASE("the output folder is checked once: a link as the folder or under one of its names",
          "[run][output][links]") {
    const fs::path root = test::fresh_temp_dir("planted-folder");
    fs::create_directory(root / "real");
    fs::create_directory_symlink(root / "real", root / "link");
    CHECK_THAT(output_folder_problem(root / "link"), Catch::Contains("is a symbolic link"));
    CHECK(output_folder_problem(root / "real").empty());
    CHECK(output_folder_problem(root / "absent").empty());  // xferlab creates it
    fs::create_symlink(root / "elsewhere", root / "real" / "copies.csv");
    CHECK_THAT(output_folder_problem(root / "real"),
               Catch::Contains("copies.csv") && Catch::Contains("symbolic link"));
    fs::remove(root / "real" / "copies.csv");
    ::mkfifo((root / "real" / "trace.json").c_str(), 0600);
    CHECK_THAT(output_folder_problem(root / "real"), Catch::Contains("trace.json"));
    fs::remove_all(root);
}
