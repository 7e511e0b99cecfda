// scenario.timeout for every launcher (issue 54, item 7): only the Python launchers honoured it.
// With timeout = "2s", host and OpenMP runs of 5.2 s were marked ok, and a `staggered:100s` start
// waited its 100 s. Now the host, OpenMP and host+gil threads and those of worker processes stop
// after their current copy once the run's time is up, a staggered start's wait ends there, and
// the run fails saying so; the copies made until then are kept.
#include <filesystem>
#include <fstream>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

TEST_CASE("scenario.timeout stops host, OpenMP, host+gil and process runs, and a staggered start",
          "[integration][faults]") {
    const fs::path dir = fresh_temp_dir("native-timeout");
    const fs::path out = dir / "out";
    const fs::path file = dir / "timeout.toml";
    // 100000 copies of 1 MiB: seconds of copying on any machine, far past the 300 ms timeout.
    std::ofstream(file)
        << "[scenario]\nname = \"timeout\"\nbackend = \"host\"\ntimeout = \"300ms\"\n"
           "[transfer]\nbytes = \"1MiB\"\nrepetitions = 100000\nwarmup = 0\n"
           "[threads]\ncount = 2\n"
           "[[run]]\nlabel = \"host\"\nlauncher = \"host\"\n"
           "[[run]]\nlabel = \"openmp\"\nlauncher = \"openmp\"\n"
           "[[run]]\nlabel = \"host+gil\"\nlauncher = \"host+gil\"\n"
           "[[run]]\nlabel = \"process\"\nlauncher = \"process\"\n"
           "[[run]]\nlabel = \"stagger\"\nlauncher = \"host\"\n"
           "threads.start = \"staggered:100s\"\ntransfer.repetitions = 2\n";
    const auto r =
        run_command(xferlab() + " run --quiet --out " + quoted(out) + " " + quoted(file));
    INFO(r.err);
    CHECK(r.exit_code == 1);
    const auto results = results_of(out);
    REQUIRE(results["runs"].size() == 5);
    for (const auto& run : results["runs"]) {
        INFO(run["label"].get<std::string>());
        CHECK(run["status"] == "failed");
        REQUIRE(run["errors"].size() >= 1);
        CHECK(contains(run["errors"].dump(),
                       "the run did not finish within its timeout (300 ms, scenario.timeout): "
                       "xferlab stopped its workers after their current copy; "));
    }
    // The copies made before the timeout are kept; the staggered run's worker 1 never started.
    // (A run of more than output.inline_records copies keeps them in results.sqlite only.)
    for (int i = 0; i < 4; ++i) {
        const auto& run = results["runs"][i];
        CHECK((run.contains("records") ? run["records"].size() : run["record_count"].get<size_t>()) >=
              2);
    }
    const auto& stagger = results["runs"][4];
    CHECK(contains(stagger["errors"][0].get<std::string>(), "2 of the 4 planned copies were made"));
    for (const auto& record : stagger["records"]) CHECK(record["worker"] == 0);
    fs::remove_all(dir);
}

TEST_CASE("a stagger past a week is refused when the file is loaded, at its line and column",
          "[integration][limits]") {
    // Issue 54, item 11: worker 1 never copied, the run was "ok", exit 0.
    const fs::path dir = fresh_temp_dir("stagger-overflow");
    const fs::path file = dir / "stagger.toml";
    std::ofstream(file) << "[scenario]\nname = \"stagger\"\nbackend = \"host\"\n"
                           "[threads]\ncount = 2\nstart = \"staggered:9223372036s\"\n"
                           "[[run]]\nlauncher = \"host\"\n";
    for (const char* command : {" check ", " run --quiet --out x "}) {
        const auto r = run_command("cd " + quoted(dir) + " && " + xferlab() + command + quoted(file));
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, file.string() + ":6:9: error: threads.start: "));
        CHECK(contains(r.err, "got \"staggered:9223372036s\": more than 7 days (604800 s), the "
                              "longest duration xferlab takes"));
    }
    CHECK_FALSE(fs::exists(dir / "x"));  // nothing ran
    fs::remove_all(dir);
}

TEST_CASE("a config's run.timeout past a week is refused at its line and column",
          "[integration][limits]") {
    const fs::path dir = fresh_temp_dir("config-timeout");
    const fs::path config = dir / "xferlab.toml";
    std::ofstream(config) << "[run]\ntimeout = \"9223372036s\"\n";
    const auto r = run_command(xferlab() + " check --config " + quoted(config) + " " +
                               quoted(write_small_scenario(dir, "small")));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, config.string() + ":2:11: error: run.timeout: expected a duration such "
                          "as \"10min\", \"30s\" or \"0\"; got \"9223372036s\": more than 7 days"));
    fs::remove_all(dir);
}
