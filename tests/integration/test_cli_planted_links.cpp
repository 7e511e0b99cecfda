// `xferlab run` into a folder where a link was planted under one of the names it writes
// (issue 48, item 2): refused before anything is written (exit 2, naming the link), and the
// link's target keeps its bytes (or, for a dangling link, is never created). The output folder
// itself as a link is refused the same way. tests/unit/test_run_planted_links.cpp plants each
// link past this check, where every open refuses it on its own.
#include <filesystem>
#include <fstream>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

constexpr const char* kPrecious = "the target's own bytes\n";

}  // namespace

TEST_CASE("run refuses an output folder with a link planted under any name it writes",
          "[integration][links]") {
    for (const std::string name :
         {".xferlab.lock", ".xferlab-write-test", "journal.jsonl", "results.sqlite",
          "results.sqlite-wal", "results.sqlite-shm", "results.json", "copies.csv", "runs.csv",
          "trace.json", "payload-output.log", ".results.json.tmp.4242"})
        for (const bool dangling : {false, true}) {
            INFO(name << (dangling ? " (dangling)" : ""));
            const auto root = fresh_temp_dir("links-run");
            const fs::path out = root / "out", target = root / "target";
            fs::create_directory(out);
            if (!dangling) std::ofstream(target) << kPrecious;
            fs::create_symlink(target, out / name);
            const auto r = run_command(xferlab() + " run --quiet --force --out " + quoted(out) +
                                       " " + quoted(write_small_scenario(root, "small")));
            INFO(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(
                r.err, (out / name).string() + " is a symbolic link (to " + target.string() + ")"));
            CHECK((dangling ? !fs::exists(target) : slurp(target) == kPrecious));
            // Nothing was written beside the link: refused before the lock and the probe.
            CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 1);
            fs::remove_all(root);
        }
}

TEST_CASE("run refuses an output folder that is itself a link", "[integration][links]") {
    const auto root = fresh_temp_dir("links-folder");
    fs::create_directory(root / "elsewhere");
    fs::create_directory_symlink(root / "elsewhere", root / "out");
    const auto r = run_command(xferlab() + " run --quiet --out " + quoted(root / "out") + " " +
                               quoted(write_small_scenario(root, "small")));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "output folder " + (root / "out").string() + " is a symbolic link"));
    CHECK(fs::is_empty(root / "elsewhere"));
    fs::remove_all(root);
}
