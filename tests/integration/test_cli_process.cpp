// Launcher "process" through the CLI: every worker runs in its own process and its records
// come back; a worker process that dies is reported and the others' records are kept.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/run_records.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using json = nlohmann::json;

namespace {

fs::path write_process_scenario(const fs::path& dir, const std::string& run_table) {
    fs::path file = dir / "process.toml";
    std::ofstream(file) << "[scenario]\nname = \"process-test\"\nbackend = \"host\"\n"
                           "[transfer]\ndirection = \"h2h\"\nbytes = \"1MiB\"\nrepetitions = 4\n"
                           "warmup = 1\n[threads]\ncount = 3\n"
                        << run_table;
    return file;
}

struct Outcome {
    CommandResult command;
    json run;  // runs[0] of results.json
};

Outcome run_scenario(const std::string& run_table, const std::string& tag) {
    fs::path dir = fresh_temp_dir(tag);
    fs::path file = write_process_scenario(dir, run_table);
    Outcome o;
    o.command = run_command(xferlab() + " run '" + file.string() + "' --quiet --out '" +
                            (dir / "out").string() + "' --payload-dir '" + XFER_SOURCE_DIR +
                            "/tests/payloads'");
    json results = json::parse(slurp(dir / "out" / "results.json"));
    o.run = results["runs"][0];
    return o;
}

// process_kill.py under launcher "process" with `params` ([params] lines): worker 1 kills its
// own process. The run failed (exit 1) and names worker 1's process; returns its errors as text.
std::string kill_worker_1(const std::string& params, const std::string& tag, Outcome& o) {
    o = run_scenario("[params]\nvictim = 1\n" + params +
                         "[[run]]\nlauncher = \"process\"\npayload = \"process_kill.py\"\n",
                     tag);
    CHECK(o.command.exit_code == 1);
    CHECK(o.run["status"].get<std::string>() == "failed");
    const std::string errors = o.run["errors"].dump();
    CHECK(errors.find("worker 1 (process ") != std::string::npos);
    return errors;
}

}  // namespace

TEST_CASE("process launcher: each worker runs in its own process and every record arrives",
          "[integration][process]") {
    auto o =
        run_scenario("[[run]]\nlauncher = \"process\"\nthreads.stack_size = \"4MiB\"\n", "proc");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    CHECK(o.run["status"].get<std::string>() == "ok");
    CHECK(measured_per_worker(o.run) == std::map<int, int>{{0, 4}, {1, 4}, {2, 4}});

    std::set<int> pids;
    for (const auto& t : o.run["thread_infos"]) {
        pids.insert(t["pid"].get<int>());
        CHECK(t["launcher"].get<std::string>() == "process");
        CHECK(t["stack_size"].get<uint64_t>() == 4u << 20);  // the thread knobs reach the worker
        CHECK(t["pid"].get<int>() != 0);
    }
    CHECK(pids.size() == 3);
    // Every record carries its worker's process id.
    for (const auto& r : o.run["records"]) CHECK(pids.count(r["pid"].get<int>()) == 1);
}

TEST_CASE("process launcher with a payload runs it in each worker process",
          "[integration][process]") {
    // threads.py is found in the default folder, searched after tests/payloads.
    auto o = run_scenario("[[run]]\nlauncher = \"process\"\npayload = \"threads.py\"\n", "proc-py");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    CHECK(measured_per_worker(o.run) == std::map<int, int>{{0, 4}, {1, 4}, {2, 4}});
    std::set<int> pids;
    for (const auto& t : o.run["thread_infos"]) {
        CHECK(t["python_thread"].get<bool>());
        pids.insert(t["pid"].get<int>());
    }
    CHECK(pids.size() == 3);
}

TEST_CASE("process launcher: a worker killed mid-run is reported, the others' records survive",
          "[integration][process]") {
    // Killed at once after 2 copies: whether its records went out in a batch first depends on
    // when the streamer last woke, so only the other workers' records are certain.
    Outcome o;
    const std::string errors = kill_worker_1("after = 2\n", "proc-kill", o);
    INFO(errors);
    CHECK(errors.find("killed by SIGKILL before reporting") != std::string::npos);
    auto measured = measured_per_worker(o.run);
    CHECK(measured[0] == 4);
    CHECK(measured[2] == 4);
    CHECK(measured[1] <= 1);  // its warm-up and first copy at most
}

TEST_CASE("process launcher: a worker killed mid-run keeps the records it streamed before",
          "[integration][process]") {
    // 3 copies (the warm-up and 2 measured), then 1 s without copying: the streamer (every
    // ~50 ms) has sent them when the process kills itself.
    Outcome o;
    const std::string errors = kill_worker_1("after = 3\nlinger = 1.0\n", "proc-stream-kill", o);
    INFO(errors);
    CHECK(errors.find("was killed by SIGKILL before reporting all its records: the 3 it sent "
                      "during the run are kept, the copies after its last batch are lost; the "
                      "other workers' records are kept") != std::string::npos);
    CHECK(measured_per_worker(o.run) == std::map<int, int>{{0, 4}, {1, 2}, {2, 4}});
    std::vector<int> victim_reps;
    for (const auto& r : o.run["records"])
        if (r["worker"] == 1) victim_reps.push_back(r["repetition"].get<int>());
    CHECK(victim_reps == std::vector<int>{-1, 0, 1});
}

TEST_CASE("process launcher: a lone worker process killed is not told of other workers",
          "[integration][process]") {
    // Issue 54, item 14: "the other workers' records are kept" where there were none.
    const Outcome o = run_scenario(
        "[params]\nvictim = 0\nafter = 0\n[[run]]\nlauncher = "
        "\"process\"\npayload = \"process_kill.py\"\n"
        "threads.count = 1\n",
        "proc-lone-kill");
    const std::string errors = o.run["errors"].dump();
    INFO(errors);
    CHECK(o.command.exit_code == 1);
    CHECK(errors.find("worker 0 (process ") != std::string::npos);
    CHECK(errors.find("was killed by SIGKILL before reporting its records: they are lost\"") !=
          std::string::npos);
    CHECK(errors.find("other workers") == std::string::npos);
}

TEST_CASE("process launcher: records streamed during the run arrive exactly once",
          "[integration][process]") {
    // 30 copies 10 ms apart: about 300 ms of copying, so several batches go out before the
    // result, which carries every record again.
    auto o = run_scenario(
        "[[run]]\nlauncher = \"process\"\ntransfer.repetitions = 30\n"
        "threads.between = \"sleep:10ms\"\n",
        "proc-stream");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    CHECK(measured_per_worker(o.run) == std::map<int, int>{{0, 30}, {1, 30}, {2, 30}});
    std::set<std::pair<int, int>> seen;
    for (const auto& r : o.run["records"])
        seen.insert({r["worker"].get<int>(), r["repetition"].get<int>()});
    CHECK(seen.size() == o.run["records"].size());
    CHECK(o.run["records"].size() == 3 * 31);
}

TEST_CASE("process launcher: a worker that dies before the start releases the others",
          "[integration][process]") {
    auto o = run_scenario(
        "[params]\nvictim = 2\nafter = 0\n[[run]]\nlauncher = \"process\"\n"
        "payload = \"process_kill.py\"\n",
        "proc-early");
    CHECK(o.command.exit_code == 1);
    std::string errors = o.run["errors"].dump();
    INFO(errors);
    CHECK(errors.find("worker 2 (process ") != std::string::npos);
    // Nobody copied: the barrier was aborted rather than waited on until the timeout.
    CHECK(measured_per_worker(o.run).empty());
    CHECK(errors.find("timeout") == std::string::npos);
}

TEST_CASE("process launcher isolates a payload that crashes or calls os._exit, the next run runs",
          "[integration][process]") {
    fs::path dir = fresh_temp_dir("proc-faults");
    fs::path file =
        write_process_scenario(dir,
                               "[[run]]\nlauncher = \"process\"\npayload = \"segfault.py\"\n"
                               "[[run]]\nlauncher = \"process\"\npayload = \"os_exit.py\"\n"
                               "[[run]]\nlauncher = \"host\"\n");
    // No core files: the crash is the point, not its dump.
    auto r = run_command("ulimit -c 0; " + xferlab() + " run '" + file.string() +
                         "' --quiet --out '" + (dir / "out").string() + "' --payload-dir '" +
                         XFER_SOURCE_DIR + "/tests/payloads'");
    INFO(r.err);
    CHECK(r.exit_code == 1);  // runs failed; xferlab itself did not crash
    json results = json::parse(slurp(dir / "out" / "results.json"));
    REQUIRE(results["runs"].size() == 3);
    const std::string crashed = results["runs"][0]["errors"].dump();
    const std::string exited = results["runs"][1]["errors"].dump();
    INFO(crashed);
    INFO(exited);
    CHECK(results["runs"][0]["status"].get<std::string>() == "failed");
    CHECK(crashed.find("worker 2 (process ") != std::string::npos);
    // In a sanitizer build (flags on the program, not on this test) the sanitizer handles the
    // SIGSEGV itself, reports "...Sanitizer:DEADLYSIGNAL" and exits (66: ThreadSanitizer, 1:
    // AddressSanitizer; both seen in CI): the crash then shows as that exit status.
    if (r.err.find("Sanitizer:DEADLYSIGNAL") != std::string::npos)
        CHECK((crashed.find("exited with status 66 ") != std::string::npos ||
               crashed.find("exited with status 1 ") != std::string::npos));
    else
        CHECK(crashed.find("killed by SIGSEGV") != std::string::npos);
    CHECK(results["runs"][1]["status"].get<std::string>() == "failed");
    // "before reporting its records" or, when the streamer sent the copy first, "before
    // reporting all its records: the 1 it sent during the run are kept".
    CHECK(exited.find("exited with status 3 before reporting") != std::string::npos);
    CHECK(results["runs"][2]["status"].get<std::string>() == "ok");
    CHECK(measured_per_worker(results["runs"][2]) == std::map<int, int>{{0, 4}, {1, 4}, {2, 4}});
}

TEST_CASE("xferlab worker started by hand says what it is for, exit 2", "[integration][process]") {
    auto r = run_command(xferlab() + " worker 3<&-");  // no job pipe on fd 3
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("xferlab worker: ") != std::string::npos);
    CHECK(r.err.find("started by launchers \"process\", \"python-ft\" and \"python-subinterp\", "
                     "not by hand") != std::string::npos);
}

TEST_CASE("process launcher: a skipped run's note says no records came back, not that they merged",
          "[integration][process]") {
    auto o = run_scenario("[[run]]\nlauncher = \"process\"\npayload = \"skip.py\"\n", "skip");
    INFO(o.command.err);
    CHECK(o.command.exit_code == 0);
    CHECK(o.run["status"].get<std::string>() == "skipped");
    CHECK(o.run["records"].empty());
    const std::string notes = o.run["notes"].dump();
    CHECK(notes.find("no records came back") != std::string::npos);
    CHECK(notes.find("merged") == std::string::npos);
    // With records the note says they were merged.
    auto ok = run_scenario("[[run]]\nlauncher = \"process\"\n", "merged");
    CHECK(ok.run["notes"].dump().find("records merged on the shared CLOCK_MONOTONIC") !=
          std::string::npos);
}

