// A thread the system refuses to start (issue 48, item 4): under `ulimit -d 8000` the
// host-activity sampler's std::thread threw std::system_error with nothing to catch it, and
// xferlab aborted (SIGABRT, exit 134) with its run unrecorded. Now the run is recorded as failed
// with the reason (its workers cannot start either), the sampler's loss is a note, and `threads`
// says which thread could not start: exit 1, never an abort. Issue 54, item 9: libgomp ended
// the process when it could not create an OpenMP thread (`ulimit -d 20000`: "libgomp: Thread
// creation failed", exit 1 mid-plan, the run unrecorded), and `threads` exited 0 when its Python
// thread could not start.
#include <filesystem>
#include <fstream>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// `args` for xferlab under an 8000 KiB data-segment limit: no room for a thread's 8 MiB stack.
CommandResult without_room_for_threads(const std::string& args, int kib = 8000) {
    return run_command("bash -c 'ulimit -d " + std::to_string(kib) + "; exec \"$0\" \"$@\"' " +
                       xferlab() + " " + args);
}

}  // namespace

TEST_CASE("run where no thread can start: the run fails with the reason, exit 1",
          "[integration][faults][threads]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -d");
        return;
    }
    const auto dir = fresh_temp_dir("thread-start");
    const fs::path out = dir / "out";
    const auto r = without_room_for_threads("run --quiet --out " + quoted(out) + " " +
                                            quoted(write_small_scenario(dir, "small")));
    INFO(r.err);
    CHECK(r.exit_code == 1);
    const auto run = results_of(out)["runs"][0];
    CHECK(run["status"] == "failed");
    CHECK(contains(run["errors"][0].get<std::string>(),
                   "pthread_create: Resource temporarily unavailable"));
    CHECK(contains(run["notes"].dump(), "the thread that samples it could not start"));
    CHECK(line_count(slurp(out / "journal.jsonl")) == 1);
    fs::remove_all(dir);
}

TEST_CASE("threads where no thread can start says which, exit 1",
          "[integration][faults][threads]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -d");
        return;
    }
    const auto r = without_room_for_threads("threads");
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "a host thread could not start: Resource temporarily unavailable"));
}

TEST_CASE("an OpenMP run whose thread cannot start fails with the reason, the plan goes on",
          "[integration][faults][threads]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -d");
        return;
    }
    const auto dir = fresh_temp_dir("omp-thread-start");
    const fs::path out = dir / "out";
    const fs::path file = dir / "omp.toml";
    std::ofstream(file) << "[scenario]\nname = \"omp\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n"
                           "[threads]\ncount = 2\n"
                           "[[run]]\nlauncher = \"openmp\"\n[[run]]\nlauncher = \"host\"\n";
    // 20000 KiB: room for the process and one thread's stack, not for the OpenMP team's.
    const auto r =
        without_room_for_threads("run --quiet --out " + quoted(out) + " " + quoted(file), 20000);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_FALSE(contains(r.err, "libgomp"));
    const auto results = results_of(out);
    REQUIRE(results["runs"].size() == 2);  // the plan went on past the OpenMP run
    const auto& run = results["runs"][0];
    CHECK(run["status"] == "failed");
    CHECK(contains(run["errors"][0].get<std::string>(),
                   "OpenMP cannot start a team of 2 threads here: pthread_create: Resource "
                   "temporarily unavailable (1 more thread with OpenMP's stack of "));
    CHECK(line_count(slurp(out / "journal.jsonl")) == 2);
    fs::remove_all(dir);
}

TEST_CASE("threads where its Python thread cannot start says so, exit 1",
          "[integration][faults][threads]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -d");
        return;
    }
    const auto r = without_room_for_threads("threads", 20000);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err,
                   "xferlab threads: a Python thread could not start: RuntimeError: "
                   "can't start new thread"));
}
