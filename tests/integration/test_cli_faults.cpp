// Faults during a plan, each with a clear message, none losing the runs before it: host
// allocation failure, a payload that hangs, calls os._exit or crashes the process, and an
// output folder that cannot be written or is full (refused before the first run).
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

std::string payload_dir() { return (fs::path(XFER_SOURCE_DIR) / "tests" / "payloads").string(); }

// A host run (run 0, kept whatever happens next) followed by a python run of `payload`.
fs::path host_then_payload(const fs::path& dir, const std::string& payload,
                           const std::string& extra = "") {
    fs::path file = dir / "fault.toml";
    std::ofstream(file) << "[scenario]\nname = \"fault\"\nbackend = \"host\"\n"
                        << extra
                        << "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 1\n"
                           "[threads]\ncount = 1\n"
                           "[[run]]\nlauncher = \"host\"\n"
                           "[[run]]\nlauncher = \"python\"\npayload = \""
                        << payload << "\"\n";
    return file;
}

CommandResult run_in(const fs::path& scenario, const fs::path& out,
                     const std::string& prefix = "") {
    return run_command(prefix + xferlab() + " run '" + scenario.string() + "' --payload-dir '" +
                       payload_dir() + "' --quiet --out '" + out.string() + "'");
}

uint64_t mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

}  // namespace

TEST_CASE("host allocation failure names the worker and size, keeps run 0, exit 1",
          "[integration][faults]") {
    // 1 GiB source + 1 GiB destination in run 1, under a 1 GiB data-segment limit
    // (RLIMIT_DATA, which counts private mappings). The preflight refuses past the
    // address-space limit (ulimit -v) but does not read RLIMIT_DATA, so this is how a test
    // reaches an allocation that fails after the preflight; the machine needs the memory free.
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -d");
        return;
    }
    if (mem_available() < (uint64_t(3) << 30)) {
        WARN("skipped: needs 3 GiB of available memory so that the preflight accepts the run");
        return;
    }
    auto dir = fresh_temp_dir("alloc");
    fs::path file = dir / "alloc.toml";
    std::ofstream(file) << "[scenario]\nname = \"alloc\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                           "[threads]\ncount = 1\n"
                           "[[run]]\nlauncher = \"host\"\n"
                           "[[run]]\nlauncher = \"host\"\ntransfer.bytes = \"1GiB\"\n";
    auto out = dir / "out";
    auto r = run_command("bash -c \"ulimit -d 1048576; exec " + xferlab() + " run '" +
                         file.string() + "' --out '" + out.string() + "'\"");
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "[2/2]"));  // the progress line names the run
    CHECK(contains(r.err, "preparing buffers for worker 0 failed: pageable: allocating"));
    CHECK(contains(r.err, "(1024 MiB) failed: Cannot allocate memory"));
    json j = results_of(out);
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][1]["status"].get<std::string>() == "failed");
    CHECK(contains(j["runs"][1]["errors"][0].get<std::string>(), "worker 0"));
    CHECK(j["complete"].get<bool>());
    fs::remove_all(dir);
}

TEST_CASE("a payload that calls os._exit(3) is recorded as failed, run 0 kept, exit 1",
          "[integration][faults]") {
    auto dir = fresh_temp_dir("osexit");
    auto out = dir / "out";
    auto r = run_in(host_then_payload(dir, "os_exit.py"), out);
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "payload called os._exit(3) in run 1 (python gil=release)"));
    json j = results_of(out);
    CHECK_FALSE(j["complete"].get<bool>());
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][0]["records"].size() == 3);  // 1 warm-up + 2 repetitions
    CHECK(j["runs"][1]["status"].get<std::string>() == "failed");
    CHECK(contains(j["runs"][1]["errors"][0].get<std::string>(), "payload called os._exit(3)"));
    const std::string journal = slurp(out / "journal.jsonl");
    CHECK(std::count(journal.begin(), journal.end(), '\n') == 2);
    fs::remove_all(dir);
}

TEST_CASE("a payload that crashes the process: the handler names the run and the results",
          "[integration][faults]") {
    auto dir = fresh_temp_dir("segv");
    auto out = dir / "out";
    auto r = run_in(host_then_payload(dir, "segfault.py"), out);
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 128 + SIGSEGV);  // the crash itself, re-raised after the message
    CHECK(contains(r.err,
                   "xferlab: crashed (SIGSEGV, invalid memory access) during run 1 "
                   "(python gil=release); the 1 completed run(s) before it are in " +
                       out.string() + "/journal.jsonl"));
    // No report file is written before the plan's end: the folder is read from results.sqlite.
    CHECK_FALSE(fs::exists(out / "results.json"));
    const auto report = run_command(xferlab() + " report '" + out.string() + "' --format json");
    INFO(report.err);
    REQUIRE(report.exit_code == 0);
    const json j = json::parse(report.out);
    CHECK_FALSE(j["complete"].get<bool>());
    REQUIRE(j["runs"].size() == 1);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][0]["records"].size() == 3);  // 1 warm-up + 2 repetitions
    fs::remove_all(dir);
}

TEST_CASE("a payload that hangs is stopped at the timeout and reported, run 0 kept, exit 1",
          "[integration][faults]") {
    auto dir = fresh_temp_dir("hang");
    auto out = dir / "out";
    auto r = run_in(host_then_payload(dir, "hang.py", "timeout = \"1s\"\n"), out);
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    json j = results_of(out);
    CHECK(j["complete"].get<bool>());
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][1]["status"].get<std::string>() == "failed");
    const std::string error = j["runs"][1]["errors"][0].get<std::string>();
    CHECK(contains(error, "payload did not finish within 1.00 s"));
    CHECK(contains(error, "threads still running"));
    fs::remove_all(dir);
}

TEST_CASE("an output folder that exists but cannot be written is refused before run 0",
          "[integration][faults]") {
    auto dir = fresh_temp_dir("unwritable");
    fs::path scenario = host_then_payload(dir, "os_exit.py");
    // /proc/1 exists and refuses new files even to root (/proc/self is a link: refused as one).
    auto r = run_in(scenario, "/proc/1");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "output folder /proc/1 is not writable"));
    if (::geteuid() != 0) {  // permission bits bind everyone but root
        fs::create_directories(dir / "ro");
        fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
        auto ro = run_in(scenario, dir / "ro");
        CHECK(ro.exit_code == 2);
        CHECK(contains(ro.err, "is not writable: Permission denied"));
        fs::permissions(dir / "ro", fs::perms::owner_all);
    }
    fs::remove_all(dir);
}

TEST_CASE("a full output folder (ulimit -f) is refused before run 0, exit 2",
          "[integration][faults]") {
    auto dir = fresh_temp_dir("full");
    auto out = dir / "out";
    // Files may not grow past 1 KiB: the probe's 4 KiB write fails as on a full disk (EFBIG
    // rather than ENOSPC), and SIGXFSZ must not kill xferlab.
    auto r = run_in(host_then_payload(dir, "os_exit.py"), out,
                    "bash -c 'ulimit -f 1; exec \"$0\" \"$@\"' ");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "cannot be written: File too large"));
    CHECK_FALSE(fs::exists(out / "journal.jsonl"));
    CHECK_FALSE(fs::exists(out / "results.json"));
    fs::remove_all(dir);
}
