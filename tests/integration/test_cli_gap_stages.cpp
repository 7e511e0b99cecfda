// [threads] gap_stages and gap_counters, and gap_after.py's switches for the candidates
// (docs/results/gap-after-a-call.md): each stage's stamp lies between its neighbours in every
// interpreter, nothing is stamped by default, the counters over a gap count what the thread did
// in it, and each switch does what it says (the pinned worker ran on the CPU it asked for, the
// flush streamed its buffer in every block, idle states held where the host lets it).
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/siblings.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

// A namespace of its own: unity builds put this file beside others' anonymous helpers.
namespace gap_stages_test {

struct StageOutcome {
    CommandResult command;
    json results;
};

// One worker, 1 MiB host to host, 3 measured copies and 1 warm-up per run, `threads` added to
// [threads], `runs` as [[run]] tables; `--full` printed.
StageOutcome run_stages(const std::string& threads, const std::string& runs,
                        const std::string& tag) {
    const fs::path dir = fresh_temp_dir(tag);
    std::ofstream(dir / "gap.toml") << "[scenario]\nname = \"gap\"\nbackend = \"host\"\n"
                                       "[transfer]\ndirection = \"h2h\"\nbytes = \"1MiB\"\n"
                                       "repetitions = 3\nwarmup = 1\n[threads]\ncount = 1\n"
                                    << threads << runs;
    StageOutcome o;
    o.command = run_command(xferlab() + " run --full '" + (dir / "gap.toml").string() +
                            "' --out '" + (dir / "out").string() + "'");
    o.results = json::parse(slurp(dir / "out" / "results.json"));
    return o;
}

std::string stage_run(const std::string& launcher, const std::string& during,
                      const std::string& more = "") {
    return "[[run]]\nlauncher = \"" + launcher +
           "\"\npayload = \"gap_after.py\"\nparams.during = \"" + during + "\"\n" + more;
}

// The launchers whose interpreters this build can run: python always, python-ft and
// python-subinterp where it made their executables (sanitizer builds do not).
std::vector<std::string> stage_launchers() {
    std::vector<std::string> out = {"python"};
    if (sibling_configured("xferlab-ft")) out.push_back("python-ft");
    if (sibling_configured("xferlab-py313")) out.push_back("python-subinterp");
    return out;
}

}  // namespace gap_stages_test

using namespace gap_stages_test;

TEST_CASE("gap_stages: each stamp lies between its neighbours, in every interpreter",
          "[integration][gap]") {
    std::string runs;
    const auto launchers = stage_launchers();
    for (const auto& l : launchers)
        runs += stage_run(l, "copy") + stage_run(l, "spin", "params.hold_ms = 2\n");
    const StageOutcome o = run_stages("gap_stages = true\n", runs, "gap-stages");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    REQUIRE(o.results["runs"].size() == 2 * launchers.size());
    for (const auto& run : o.results["runs"]) {
        INFO(run["label"].get<std::string>());
        CHECK(run["status"] == "ok");
        CHECK(contains(run["notes"].dump(), "xferlab.gap_mark() after each call"));
        const auto& records = run["records"];
        REQUIRE(records.size() == 4);
        for (size_t k = 1; k < records.size(); ++k) {
            INFO("record " << k << ": " << records[k].dump());
            const json& gap = records[k].at("gap");
            // return <= the interpreter re-entered <= the payload's mark <= the next call's
            // entry <= its start.
            const int64_t stamps[] = {
                records[k - 1]["host_end_ns"].get<int64_t>(), gap.at("attached_ns").get<int64_t>(),
                gap.at("python_ns").get<int64_t>(), gap.at("entry_ns").get<int64_t>(),
                records[k]["host_start_ns"].get<int64_t>()};
            for (size_t s = 1; s < 5; ++s) CHECK(stamps[s - 1] <= stamps[s]);
        }
    }
    // Each run's full section says what its stages took.
    CHECK(
        contains(squeeze(o.command.out), "gap stages over 3 gaps, p50 (p90): return to attached "));
    CHECK(contains(squeeze(o.command.out), "; attached to python "));
}

TEST_CASE("without gap_stages or gap_counters no record has a gap, and the payload marks none",
          "[integration][gap]") {
    const StageOutcome o =
        run_stages("", stage_run("python", "copy") + "[[run]]\nlauncher = \"host\"\n", "gap-off");
    REQUIRE(o.command.exit_code == 0);
    for (const auto& run : o.results["runs"]) {
        CHECK(run["settings"]["threads"]["gap_stages"] == false);
        for (const auto& r : run["records"]) CHECK_FALSE(r.contains("gap"));
    }
    CHECK_FALSE(contains(o.results["runs"][0]["notes"].dump(), "gap_mark"));
    CHECK_FALSE(contains(o.command.out, "gap stages"));
}

TEST_CASE("gap_counters: the counters over a gap count what the thread did in it",
          "[integration][gap]") {
    // Host threads sleeping 2 ms between their copies: every gap blocked at least once. A
    // counter the host does not offer is said in the run's notes instead.
    const StageOutcome o = run_stages("gap_counters = true\nbetween = \"sleep:2ms\"\n",
                                      "[[run]]\nlauncher = \"host\"\n", "gap-counters");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const json& run = o.results["runs"][0];
    const auto& records = run["records"];
    REQUIRE(records.size() == 4);
    CHECK_FALSE(records[0].contains("gap"));  // no gap before a worker's first copy
    const std::string notes = run["notes"].dump();
    for (size_t k = 1; k < records.size(); ++k) {
        const json& counters = records[k].at("gap").at("counters");
        INFO("record " << k << ": " << counters.dump() << "; notes: " << notes);
        CHECK(counters.at("voluntary_switches").get<int64_t>() >= 1);
        CHECK(counters.at("on_cpu_ns").get<int64_t>() >= 0);
        CHECK(counters.at("on_cpu_ns").get<int64_t>() <
              records[k]["host_start_ns"].get<int64_t>() -
                  records[k - 1]["host_end_ns"].get<int64_t>());  // it slept most of the gap
        for (const char* name : {"migrations", "instructions", "cycles", "runqueue_ns"})
            if (!counters.contains(name)) CHECK(contains(notes, name));
    }
    CHECK(contains(squeeze(o.command.out), "gap counters over 3 gaps: on_cpu_ns p50 "));
    CHECK(contains(squeeze(o.command.out), "voluntary_switches "));
}

TEST_CASE("gap_after.py cpu = K: the worker ran on CPU K, as its records and ThreadInfo say",
          "[integration][gap]") {
    cpu_set_t allowed;
    REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int cpu = -1;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) cpu = c;  // the last one this process may use
    const StageOutcome o =
        run_stages("",
                   stage_run("python", "spin",
                             "params.hold_ms = 1\nparams.cpu = " + std::to_string(cpu) + "\n"),
                   "gap-pinned");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const json& run = o.results["runs"][0];
    CHECK(contains(run["notes"].dump(), "pinned to CPU " + std::to_string(cpu)));
    CHECK(run["thread_infos"][0]["cpus"] == json::array({cpu}));
    for (const auto& r : run["records"]) CHECK(r["cpu"] == cpu);
}

TEST_CASE("gap_after.py flush_bytes: every block streams its flush buffer before it ends",
          "[integration][gap]") {
    const StageOutcome o = run_stages(
        "",
        stage_run("python", "memcpy", "params.evict_bytes = 4096\nparams.flush_bytes = 1048576\n") +
            stage_run("python", "warm", "params.hold_ms = 1\nparams.flush_bytes = 65536\n") +
            stage_run("python", "copy", "params.flush_bytes = 65536\n") +
            stage_run("python", "memcpy",
                      "params.evict_bytes = 4096\nparams.flush_bytes = 1048576\n"
                      "params.flush_in_cache = true\n"),
        "gap-flush");
    INFO(o.command.err);
    const json& runs = o.results["runs"];
    CHECK(runs[0]["status"] == "ok");
    CHECK(runs[0]["payload_verified"]["0"] ==
          "destination == source after the last memcpy; the flush buffer streamed in each of "
          "the 4 blocks");
    CHECK(contains(runs[0]["notes"].dump(), "memcpy, then 1048576 bytes streamed"));
    CHECK(runs[1]["status"] == "ok");
    CHECK(runs[1]["copy_sources"] == json::array({"warm"}));
    CHECK(runs[1]["payload_verified"]["0"] == "the flush buffer streamed in each of the 4 blocks");
    // The control copies 256 KiB the caches hold for as long as the 1 MiB flush took.
    CHECK(runs[3]["status"] == "ok");
    CHECK(contains(runs[3]["notes"].dump(),
                   "copies of 262144 bytes the caches hold, as long as a flush of 1048576 bytes"));
    CHECK(runs[3]["payload_verified"]["0"] ==
          "destination == source after the last memcpy; the flush buffer streamed in each of "
          "the 4 blocks");
    // w.copy() is xferlab's routine: nothing of the payload's runs inside it.
    CHECK(runs[2]["status"] == "failed");
    CHECK(contains(runs[2]["errors"].dump(),
                   "gap_after.py: flush_bytes needs a timed block: during = memcpy, spin, sleep "
                   "or warm"));
}

TEST_CASE("gap_after.py neighbour_bytes: another process streams on another CPU, then is gone",
          "[integration][gap]") {
    cpu_set_t allowed;
    REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    if (cpus.size() < 2) {
        WARN("skipped: one CPU allowed here, no other for the neighbour");
        return;
    }
    // The worker on the first allowed CPU: the neighbour takes the highest other one.
    const StageOutcome o = run_stages(
        "", stage_run("python", "spin",
                      "params.hold_ms = 20\nparams.cpu = " + std::to_string(cpus.front()) +
                          "\nparams.neighbour_bytes = 1048576\n"),
        "gap-neighbour");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const std::string notes = o.results["runs"][0]["notes"].dump();
    INFO(notes);
    CHECK(contains(notes, "a neighbour process streams 1048576 bytes on CPU " +
                              std::to_string(cpus.back())));
    // It ran (its CPU time read from /proc before it was stopped), and nothing of it is left.
    const size_t ran = notes.find("the neighbour ran ");
    REQUIRE(ran != std::string::npos);
    CHECK(std::stod(notes.substr(ran + 18)) > 0);
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string cmdline = slurp(e.path() / "cmdline");
        CHECK_FALSE(contains(cmdline, "os.sched_setaffinity(0, {int(sys.argv[1])})"));
    }
}

TEST_CASE("gap_after.py hold_idle: idle states held off where the host lets it, else skipped",
          "[integration][gap]") {
    const StageOutcome o = run_stages("",
                                      stage_run("python", "spin",
                                                "params.hold_ms = 1\n"
                                                "params.hold_idle = true\n"),
                                      "gap-idle");
    const json& run = o.results["runs"][0];
    INFO(o.command.err << run.dump());
    if (run["status"] == "ok") {
        // The kernel's value read back through the same file while it was held.
        CHECK(contains(run["notes"].dump(),
                       "CPU idle states held off: /dev/cpu_dma_latency reads 0 us"));
    } else {
        // Skipped with the reason, and this process cannot open the file for writing either.
        CHECK(run["status"] == "skipped");
        CHECK(contains(run["notes"].dump(), "gap_after.py: hold_idle: /dev/cpu_dma_latency: "));
        CHECK(contains(run["notes"].dump(), "CPU idle states cannot be held off here"));
        const int fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
        if (fd >= 0) close(fd);
        CHECK(fd < 0);
    }
}
