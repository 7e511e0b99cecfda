// The README's command lines do what they say (issue 48, item 1): `--set` followed by a scenario
// file, `--payload-dir DIR a.toml b.toml` running both files, and flags after the files. The
// parser itself is tested over every order in tests/unit/test_cli_arguments.cpp.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

TEST_CASE("run --set KEY=VALUE FILE runs FILE with the value, flags after it included",
          "[integration][arguments]") {
    const auto dir = fresh_temp_dir("args-set");
    const fs::path file = write_small_scenario(dir, "small");
    const auto readme = run_command(xferlab() + " run --set threads.count=2 " + quoted(file) +
                                    " --quiet --out " + quoted(dir / "readme"));
    INFO(readme.err);
    REQUIRE(readme.exit_code == 0);
    CHECK(results_of(dir / "readme")["runs"][0]["threads"] == 2);

    const auto after =
        run_command(xferlab() + " run --set transfer.bytes=128KiB " + quoted(file) +
                    " --trials 1 --out " + quoted(dir / "after") + " --quiet --brief");
    INFO(after.err);
    REQUIRE(after.exit_code == 0);
    CHECK(results_of(dir / "after")["runs"][0]["bytes_per_copy"] == 128 * 1024);
    fs::remove_all(dir);
}

TEST_CASE("run --payload-dir DIR a.toml b.toml runs both files", "[integration][arguments]") {
    const auto dir = fresh_temp_dir("args-payload-dir");
    fs::create_directory(dir / "payloads");
    const fs::path a = write_small_scenario(dir, "a"), b = write_small_scenario(dir, "b");
    const auto r = run_command(xferlab() + " run --payload-dir " + quoted(dir / "payloads") + " " +
                               quoted(a) + " " + quoted(b) + " --quiet --out " + quoted(dir / "o"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(results_of(dir / "o" / "a")["runs"].size() == 1);
    CHECK(results_of(dir / "o" / "b")["runs"].size() == 1);
    fs::remove_all(dir);
}

TEST_CASE("check --set k=v A.toml B.toml checks both files", "[integration][arguments]") {
    const auto dir = fresh_temp_dir("args-check");
    const fs::path a = write_small_scenario(dir, "a"), b = write_small_scenario(dir, "b");
    const auto r =
        run_command(xferlab() + " check --set threads.count=3 " + quoted(a) + " " + quoted(b));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, a.string() + ": a"));
    CHECK(contains(r.out, b.string() + ": b"));
    fs::remove_all(dir);
}

TEST_CASE("run --out= and --trials abc name what is wrong, and --help lists exit code 3",
          "[integration][arguments]") {
    const auto dir = fresh_temp_dir("args-messages");
    const fs::path file = write_small_scenario(dir, "small");
    const auto empty_out = run_command(xferlab() + " run --out= " + quoted(file));
    CHECK(empty_out.exit_code == 2);
    CHECK(contains(empty_out.err, "xferlab run: --out is empty: give a folder"));
    const auto trials = run_command(xferlab() + " run --trials abc " + quoted(file));
    CHECK(trials.exit_code == 2);
    CHECK(contains(trials.err, "--trials: expected a whole number from 1 to 1000; got 'abc'"));
    const auto help = run_command(xferlab() + " --help");
    CHECK(help.exit_code == 0);
    CHECK(contains(squeeze(help.out), "3 the results could not be written"));
    CHECK(contains(squeeze(help.out), "130 interrupted"));
    fs::remove_all(dir);
}
