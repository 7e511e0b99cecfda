// `xferlab watch -- CMD`: the program run with the library's variables, its exit status and
// signals passed through, its copies read back as one run of launcher "watched" whatever way
// it ended, its children followed, and a results folder the other commands read. The program
// here is the fake producer (support/watch_fake_program.cpp): it writes through the same
// capture layer as the injected library, in the shape CUPTI delivers events.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"
#include "support/spawn.hpp"
#include "watch/watch_records.h"

using namespace xfer::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fake() { return std::string("'") + XFER_WATCH_FAKE + "'"; }

// `xferlab watch` with the fake producer standing in for the injection library's file (the
// driver would load what CUDA_INJECTION64_PATH names; the fake records through its own capture).
std::string watch(const fs::path& out, const std::string& flags, const std::string& program) {
    return "env XFERLAB_WATCH_LIBRARY=" + fake() + " " + xferlab() + " watch --out '" +
           out.string() + "' " + flags + " -- " + fake() + " " + program;
}

// The watched run. Where a CUDA device answers (the GPU host), xferlab's page-locked reference
// copies follow it as runs of their own: the fake producer's copies name device 0.
json only_run(const fs::path& dir) {
    const json results = results_of(dir);
    REQUIRE(!results["runs"].empty());
    const json& runs = results["runs"];
    for (size_t i = 1; i < runs.size(); ++i) {
        INFO(runs[i]["label"]);
        CHECK(cuda_available());
        CHECK(runs[i]["launcher"] == "host");
    }
    return runs[0];
}

bool has_note(const json& run, const std::string& text) {
    for (const auto& n : run["notes"])
        if (n.get<std::string>() == text) return true;
    return false;
}

bool note_starting(const json& run, const std::string& start) {
    for (const auto& n : run["notes"])
        if (n.get<std::string>().rfind(start, 0) == 0) return true;
    return false;
}

std::set<int> pids_of(const json& run) {
    std::set<int> pids;
    for (const auto& r : run["records"]) pids.insert(r["pid"].get<int>());
    return pids;
}

}  // namespace

TEST_CASE("watch records each copying thread as a worker and exits with the program's status",
          "[cli][watch]") {
    const fs::path dir = fresh_temp_dir("watch") / "out";
    const CommandResult r = run_command(
        watch(dir, "--quiet", "--threads 3 --copies 5 --bytes 65536 --name-threads --exit 7"));
    INFO(r.err);
    CHECK(r.exit_code == 7);
    const json run = only_run(dir);
    CHECK(run["launcher"] == "watched");
    CHECK(run["threads"] == 3);
    REQUIRE(run["records"].size() == 15);
    std::set<int> workers;
    for (const auto& rec : run["records"]) {
        workers.insert(rec["worker"].get<int>());
        CHECK(rec["size_bytes"] == 65536);
        CHECK(rec["copy_kind"] == "HtoD");
        CHECK(rec["src_kind"] == "pageable");
        CHECK(rec["dst_kind"] == "device");
        CHECK(rec["device_timing"] == "cupti");
        CHECK(rec["device_start_ns"].get<int64_t>() >= rec["host_start_ns"].get<int64_t>());
        CHECK(rec["device_end_ns"].get<int64_t>() <= rec["host_end_ns"].get<int64_t>());
    }
    CHECK(workers == std::set<int>{0, 1, 2});
    std::set<std::string> names;
    for (const auto& t : run["thread_infos"]) names.insert(t["name"].get<std::string>());
    CHECK(names == std::set<std::string>{"copier-0", "copier-1", "copier-2"});
    CHECK(note_starting(run, "the program ("));
    CHECK(has_note(run, "copy calls by function: cudaMemcpy 15"));
    // The page-locked reference needs the CUDA backend: where it is unavailable, the run says so.
    if (!cuda_available())
        CHECK(note_starting(run, "no page-locked reference copy was timed: backend cuda is "
                                 "unavailable here"));
    CHECK(fs::is_regular_file(dir / "results.sqlite"));
    CHECK(fs::is_regular_file(dir / "journal.jsonl"));
}

TEST_CASE("report, compare and plot read a watch's folder like any other", "[cli][watch]") {
    const fs::path dir = fresh_temp_dir("watch") / "out";
    // --no-reference: one run, whether or not a device answers here.
    REQUIRE(run_command(watch(dir, "--quiet --no-reference", "--threads 2 --copies 4 --serialize"))
                .exit_code == 0);
    const CommandResult report = run_command(xferlab() + " report '" + dir.string() + "'");
    CHECK(report.exit_code == 0);
    CHECK(report.out.find("Watched program (run 0)") != std::string::npos);
    CHECK(report.out.find("HtoD pageable -> device") != std::string::npos);
    CHECK(report.out.find("run: launcher = watched, backend = cuda") != std::string::npos);
    const CommandResult as_json =
        run_command(xferlab() + " report --format json '" + dir.string() + "'");
    const json analysis = json::parse(as_json.out)["runs"][0]["analysis"]["watched"];
    CHECK(analysis["threads"].size() == 2);
    CHECK(analysis["groups"][0]["copies"] == 8);
    const CommandResult compare =
        run_command(xferlab() + " compare '" + dir.string() + "' '" + dir.string() + "'");
    CHECK(compare.exit_code == 0);
    CHECK(compare.out.find("watched") != std::string::npos);
    const CommandResult plot = run_command(xferlab() + " plot '" + dir.string() + "' --out '" +
                                           (dir / "figures").string() + "'");
    if (XFER_TEST_MATPLOTLIB != 0) {
        INFO(plot.err);
        CHECK(plot.exit_code == 0);
        CHECK(fs::exists(dir / "figures" / "timeline.png"));
    } else {
        CHECK(plot.err.find("matplotlib cannot be imported") != std::string::npos);
    }
}

TEST_CASE("a signal sent to xferlab reaches the program, and its copies up to then are kept",
          "[cli][watch]") {
    const fs::path tmp = fresh_temp_dir("watch");
    const fs::path dir = tmp / "out";
    const Background b =
        start_background(watch(dir, "--quiet", "--threads 2 --copies 3 --wait-signal"), tmp);
    REQUIRE(b.pid > 0);
    // The program says "ready" (its stdout is xferlab's) once its copies are recorded.
    REQUIRE(wait_until([&] { return slurp(b.out).find("ready") != std::string::npos; }));
    ::kill(b.pid, SIGTERM);
    CHECK(wait_exit_code(b.pid) == 128 + SIGTERM);
    const json results = results_of(dir);
    CHECK(results["interrupted"] == true);
    const json& run = results["runs"][0];
    CHECK(run["status"] == "interrupted");
    CHECK(run["records"].size() == 6);
    CHECK(has_note(run, "the program (" + std::string(XFER_WATCH_FAKE) +
                            " --threads 2 --copies 3 --wait-signal) exited with status 143"));
}

TEST_CASE("a program that dies before its exit handler keeps every copy it recorded",
          "[cli][watch]") {
    const std::string how =
        GENERATE(std::string("--raise 9"), std::string("--os-exit 3"), std::string("--raise 11"));
    INFO(how);
    const fs::path dir = fresh_temp_dir("watch") / "out";
    const CommandResult r =
        run_command(watch(dir, "--quiet", "--threads 2 --copies 40 --bytes 4096 " + how));
    INFO(r.err);
    // A sanitizer's own SIGSEGV handler reports and exits instead of dying by the signal.
    if (kSanitizerBuild && how == "--raise 11")
        CHECK(r.exit_code != 0);
    else
        CHECK(r.exit_code == (how == "--raise 9" ? 137 : how == "--os-exit 3" ? 3 : 139));
    const json run = only_run(dir);
    CHECK(note_starting(run, "process "));
    bool said_no_exit_handler = false;
    for (const auto& n : run["notes"])
        said_no_exit_handler |= n.get<std::string>().find(
                                    "ended without the library's exit "
                                    "handler") != std::string::npos;
    CHECK(said_no_exit_handler);
    // Every call is a record or counted as one whose device copy was never delivered.
    size_t undelivered = 0;
    for (const auto& n : run["notes"]) {
        const std::string t = n.get<std::string>();
        const size_t at = t.find(" copy call(s) have no device copy");
        if (at != std::string::npos) undelivered = std::stoul(t.substr(0, at));
    }
    CHECK(run["records"].size() + undelivered == 80);
}

TEST_CASE("the program's children are followed: each process writes its own file", "[cli][watch]") {
    const fs::path dir = fresh_temp_dir("watch") / "out";
    const CommandResult r =
        run_command(watch(dir, "--quiet", "--threads 1 --copies 3 --child --threads 2 --copies 4"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir / "watch"))
        files += e.path().extension() == XW_FILE_SUFFIX;
    CHECK(files == 2);
    const json run = only_run(dir);
    CHECK(run["records"].size() == 11);
    CHECK(run["threads"] == 3);
    CHECK(pids_of(run).size() == 2);
    CHECK(note_starting(run, "2 processes recorded copies ("));
}

TEST_CASE("copies below --min-bytes are counted, not recorded", "[cli][watch]") {
    const fs::path dir = fresh_temp_dir("watch") / "out";
    const CommandResult r = run_command(
        watch(dir, "--quiet --min-bytes 8KiB", "--threads 1 --copies 6 --bytes 4096 --memsets 1"));
    REQUIRE(r.exit_code == 0);
    const json run = only_run(dir);
    CHECK(run["records"].empty());
    CHECK(has_note(run, "device 0: 6 copies below --min-bytes 8 KiB (24 KiB in all) are left out"));
    CHECK(has_note(run,
                   "device 0: the program also set memory 1 time(s) (4 KiB in all): memsets "
                   "are not copies and are left out"));
    const CommandResult bad = run_command(xferlab() + " watch --min-bytes lots -- true");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("xferlab watch: --min-bytes lots: ") != std::string::npos);
}

TEST_CASE("the sampled pages' node is held against the device's nearest node (fake topology)",
          "[cli][watch][numa]") {
    // This machine's pages are on its node 0; the fake says device 0's nearest node is 1, then
    // 0: the finding comes and goes with the topology alone.
    const fs::path tmp = fresh_temp_dir("watch");
    for (int nearest : {1, 0}) {
        const fs::path dir = tmp / ("near" + std::to_string(nearest));
        const CommandResult r = run_command(watch(
            dir, "",
            "--threads 2 --copies 3 --bytes 2097152 --device-node 0:" + std::to_string(nearest)));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string finding =
            "device 0: the host pages of 6 of the 6 sampled pageable "
            "copies were mostly on NUMA node 0, not on the device's "
            "nearest node 1";
        const bool said = r.out.find(finding.substr(0, 60)) != std::string::npos;
        CHECK(said == (nearest == 1));
        CHECK(r.out.find("where the bytes live, device 0 (nearest NUMA node " +
                         std::to_string(nearest) + "): 6 pageable copies, 6 with sampled") !=
              std::string::npos);
        const json run = only_run(dir);  // a range-for over a temporary's member dangles
        for (const auto& rec : run["records"]) CHECK(rec["host_node"] == 0);
        const json nodes = run["analysis"]["host_nodes"];
        REQUIRE(nodes.size() == 1);
        CHECK(nodes[0]["nearest_node"] == nearest);
        CHECK(nodes[0]["copies_on"] == json{{"0", 6}});
    }
}

TEST_CASE("watch refuses what it cannot run, before the program starts", "[cli][watch]") {
    const fs::path tmp = fresh_temp_dir("watch");
    SECTION("a folder holding an earlier run's output, unless --force") {
        const fs::path dir = tmp / "out";
        REQUIRE(run_command(watch(dir, "--quiet", "--copies 1")).exit_code == 0);
        const CommandResult again = run_command(watch(dir, "--quiet", "--copies 1"));
        CHECK(again.exit_code == 2);
        CHECK(again.err.find("already holds the output of an earlier run (results.json") !=
              std::string::npos);
        CHECK(again.err.find("watch/") != std::string::npos);
        const CommandResult forced = run_command(watch(dir, "--quiet --force", "--copies 2"));
        CHECK(forced.exit_code == 0);
        CHECK(only_run(dir)["records"].size() == 4);
    }
    SECTION("another tool's CUDA_INJECTION64_PATH") {
        const CommandResult r = run_command("CUDA_INJECTION64_PATH=/opt/other/libtool.so " +
                                            watch(tmp / "x", "", "--copies 1"));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("xferlab watch: CUDA_INJECTION64_PATH is set already "
                         "(/opt/other/libtool.so): another tool injects into CUDA programs") !=
              std::string::npos);
        CHECK(!fs::exists(tmp / "x"));
    }
    SECTION("a library variable naming no file") {
        const CommandResult r = run_command("XFERLAB_WATCH_LIBRARY=/no/such.so " + xferlab() +
                                            " watch --out '" + (tmp / "y").string() + "' -- true");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("xferlab watch: XFERLAB_WATCH_LIBRARY names /no/such.so, which is not "
                         "a file") != std::string::npos);
    }
    SECTION("an empty --out") {
        const CommandResult r = run_command("env XFERLAB_WATCH_LIBRARY=" + fake() + " " +
                                            xferlab() + " watch --out= -- true");
        CHECK(r.exit_code == 2);
        CHECK(r.err ==
              "xferlab watch: --out is empty: give a folder, or leave --out out for the default "
              "(output.dir in the config)\n");
    }
#ifndef XFER_WATCH_LIBRARY
    SECTION("a build without CUDA has no library to inject") {
        const CommandResult r =
            run_command(xferlab() + " watch --out '" + (tmp / "n").string() + "' -- true");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("xferlab watch: this xferlab was built without CUDA and CUPTI: it has no "
                         "injection library") != std::string::npos);
        CHECK(!fs::exists(tmp / "n"));
    }
#endif
    SECTION("a program that cannot be started") {
        const CommandResult r =
            run_command("XFERLAB_WATCH_LIBRARY=" + fake() + " " + xferlab() + " watch --out '" +
                        (tmp / "z").string() + "' -- no-such-program-xferlab");
        CHECK(r.exit_code == 127);
        CHECK(r.err.find("xferlab watch: cannot run no-such-program-xferlab: No such file or "
                         "directory") != std::string::npos);
        CHECK(!fs::exists(tmp / "z"));
    }
}

TEST_CASE("a scenario cannot name the launcher of a watched program", "[cli][watch]") {
    const fs::path tmp = fresh_temp_dir("watch");
    std::ofstream(tmp / "s.toml") << "[scenario]\nname = \"s\"\n[[run]]\nlauncher = \"watched\"\n";
    const CommandResult r = run_command(xferlab() + " check '" + (tmp / "s.toml").string() + "'");
    CHECK(r.exit_code == 2);
    // Named among the launchers it expects, "watched" is not.
    const size_t expected = r.err.find("run[1].launcher: expected one of \"host\"");
    CHECK(expected != std::string::npos);
    CHECK(r.err.find("; got \"watched\"") != std::string::npos);
    CHECK(r.err.find("\"watched\"") == r.err.find("; got \"watched\"") + 6);
}

#ifdef XFER_WATCH_LIBRARY
TEST_CASE("the injected library loads where there is no GPU and says why it records nothing",
          "[cli][watch]") {
    // The library xferlab built (not the fake's stand-in), loaded as the driver loads it.
    if (cuda_available()) {
        WARN("skipped: a CUDA device answers here, so CUPTI starts (tests/gpu's case)");
        return;
    }
    const fs::path dir = fresh_temp_dir("watch") / "out";
    const CommandResult r = run_command(xferlab() + " watch --quiet --out '" + dir.string() +
                                        "' -- " + fake() + " --load-injection");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("InitializeInjection returned 1") != std::string::npos);
    const json run = only_run(dir);
    CHECK(run["records"].empty());
    bool cupti_said = false;
    for (const auto& n : run["notes"])
        cupti_said |= n.get<std::string>().find(": the library said: CUPTI") != std::string::npos;
    CHECK(cupti_said);
}
#endif

TEST_CASE("a million copies are recorded in bounded memory", "[cli][watch]") {
    // The fake producer alone (the program's side): 4 threads x 250,000 copies, each a runtime
    // and a driver call and an activity record, 3 million records (192 MB of file). Under a
    // sanitizer a tenth of them, and its shadow memory is no measure of the program's.
    const int copies = kSanitizerBuild ? 25'000 : 250'000;
    const fs::path dir = fresh_temp_dir("watch-million");
    const std::string command = "env CUDA_INJECTION64_PATH=" + fake() + " XFERLAB_WATCH_DIR='" +
                                dir.string() + "' " + fake() + " --threads 4 --copies " +
                                std::to_string(copies) + " --bytes 64";
    const pid_t pid = start_background(command, dir).pid;
    REQUIRE(pid > 0);
    int status = 0;
    rusage usage{};
    REQUIRE(wait4(pid, &status, 0, &usage) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    uint64_t api = 0, activities = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != XW_FILE_SUFFIX) continue;
        std::ifstream in(e.path(), std::ios::binary);
        xw_record r;
        in.seekg(sizeof(xw_header));
        while (in.read(reinterpret_cast<char*>(&r), sizeof r)) {
            if ((r.commit >> 16) != XW_COMMIT) continue;
            api += (r.commit & 0xffff) == XW_API;
            activities += (r.commit & 0xffff) == XW_MEMCPY;
        }
        fs::remove(e.path());
    }
    CHECK(api == 2 * 4 * uint64_t(copies));
    CHECK(activities == 4 * uint64_t(copies));
    // ru_maxrss in KiB: the file is 192 MB; the program's peak stays far below it (the
    // library maps 1 MiB of it at a time).
    if (!kSanitizerBuild) CHECK(usage.ru_maxrss < 32 * 1024);
}

TEST_CASE(
    "the program gets the library's variables, and Python the thread-naming "
    "sitecustomize unless --no-thread-names",
    "[cli][watch]") {
    const fs::path tmp = fresh_temp_dir("watch");
    const std::string program =
        std::string("'") + XFER_TEST_PYTHON +
        "' -c 'import os; [print(k, os.environ.get(k)) for k in (\"CUDA_INJECTION64_PATH\", "
        "\"XFERLAB_WATCH_DIR\", \"PYTHONPATH\")]'";
    const auto env_of = [&](const std::string& flags, const fs::path& dir) {
        const CommandResult r = run_command(
            "env PYTHONPATH=/the/programs/own XFERLAB_WATCH_LIBRARY=" + fake() + " " + xferlab() +
            " watch --quiet --out '" + dir.string() + "' " + flags + " -- " + program);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        return r.out;
    };
    const std::string with = env_of("", tmp / "a");
    CHECK(with.find("CUDA_INJECTION64_PATH " + std::string(XFER_WATCH_FAKE) + "\n") !=
          std::string::npos);
    CHECK(with.find("XFERLAB_WATCH_DIR " + (tmp / "a" / "watch").string()) != std::string::npos);
    CHECK(with.find("PYTHONPATH " + std::string(XFER_SOURCE_DIR) +
                    "/python/xferlab_watch:/the/programs/own") != std::string::npos);
    const std::string without = env_of("--no-thread-names", tmp / "b");
    CHECK(without.find("PYTHONPATH /the/programs/own\n") != std::string::npos);
}
