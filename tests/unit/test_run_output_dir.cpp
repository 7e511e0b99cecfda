// Which files in an output folder are an earlier run's (and so what --force deletes), and the
// unique folder names made from {timestamp}.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run/output/output_dir.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer;
using Names = std::vector<std::string>;

namespace {

void touch(const fs::path& file) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "x";
}

}  // namespace

TEST_CASE("earlier_output: xferlab's files and leftovers in a fixed order, nothing else",
          "[run][output]") {
    const fs::path dir = test::fresh_temp_dir("earlier");
    CHECK(earlier_output(dir / "missing").empty());
    for (const char* mine : {"notes.txt", "results.json.old", ".results.json.tmp.abc",
                             "journal.jsonl.bak", ".xferlab-write-test2"})
        touch(dir / mine);
    fs::create_directories(dir / "trace.json");  // a folder, not the file xferlab writes
    CHECK(earlier_output(dir).empty());

    for (const char* theirs : {"payload-output.log", "journal.jsonl", "results.json",
                               ".copies.csv.tmp.17", ".xferlab-write-test"})
        touch(dir / theirs);
    const Names expected = {"results.json", "journal.jsonl", "payload-output.log",
                            ".copies.csv.tmp.17", ".xferlab-write-test"};
    CHECK(earlier_output(dir) == expected);

    CHECK(remove_earlier_output(dir) == expected);
    CHECK(earlier_output(dir).empty());
    for (const char* kept : {"notes.txt", "results.json.old", ".results.json.tmp.abc",
                             "journal.jsonl.bak", ".xferlab-write-test2", "trace.json"})
        CHECK(fs::exists(dir / kept));
    fs::remove_all(dir);
}

TEST_CASE("unused_output_dir: a {timestamp} folder already used moves on to -2, -3",
          "[run][output]") {
    const fs::path dir = test::fresh_temp_dir("unused");
    const fs::path base = dir / "20261201-101010-seed";
    CHECK(unused_output_dir(base) == base);  // does not exist yet
    touch(base / "notes.txt");
    CHECK(unused_output_dir(base) == base);  // exists, but holds no run
    touch(base / "journal.jsonl");
    CHECK(unused_output_dir(base) == fs::path(base.string() + "-2"));
    touch(fs::path(base.string() + "-2") / "results.json");
    CHECK(unused_output_dir(base) == fs::path(base.string() + "-3"));
    fs::remove_all(dir);
}

TEST_CASE("folder_safe_name: a scenario name is one folder name", "[run][output]") {
    CHECK(folder_safe_name("seed-h2d_threads.v2") == "seed-h2d_threads.v2");
    CHECK(folder_safe_name("../up") == ".._up");
    CHECK(folder_safe_name("a b/c") == "a_b_c");
    CHECK(folder_safe_name("..") == "_.");
    CHECK(folder_safe_name(".") == "_");
    CHECK(folder_safe_name("") == "scenario");
    CHECK(expand_output_dir("r/{scenario}", "x/y") == fs::path("r/x_y"));
}
