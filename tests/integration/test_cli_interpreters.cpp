// Launchers python-ft (threads.py-style payloads in a free-threaded CPython, in a worker process
// of xferlab-ft) and python-subinterp (a sub-interpreter with its own GIL per worker) through the
// CLI on the host backend: their records complete, what their threads read back, a payload error
// in one interpreter, and their runs skipped with the reason where the interpreter is missing.
// A build configured with the sibling executables (build/siblings.json names them) must have
// them; a build without (the sanitizer builds) skips the cases that need them, saying so.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/run_records.hpp"
#include "support/siblings.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using json = nlohmann::json;

namespace {

// Whether launcher python-ft can run here: this build made xferlab-ft (then it must be there).
bool free_threaded_expected() {
    if (!sibling_configured("xferlab-ft")) {
        WARN(
            "skipped: this build has no xferlab-ft (configured without "
            "XFER_FREE_THREADED_PYTHON, as sanitizer builds are)");
        return false;
    }
    REQUIRE(fs::exists(fs::path(XFER_BINARY).parent_path() / "xferlab-ft"));
    return true;
}

// "supported", or why this xferlab cannot run sub-interpreters with their own GIL itself.
std::string own_subinterpreters() {
    const auto devices = json::parse(run_command(xferlab() + " devices --json").out);
    return devices["python"]["configured"]["subinterpreters"].get<std::string>();
}

// Whether launcher python-subinterp can run here: in this xferlab, or in xferlab-py313.
bool subinterpreters_expected() {
    if (own_subinterpreters() == "supported") return true;
    if (!sibling_configured("xferlab-py313")) {
        WARN("skipped: this xferlab cannot run sub-interpreters with their own GIL ("
             << own_subinterpreters() << ") and this build has no xferlab-py313");
        return false;
    }
    REQUIRE(fs::exists(fs::path(XFER_BINARY).parent_path() / "xferlab-py313"));
    return true;
}

struct Outcome {
    CommandResult command;
    json results;
    const json& run(size_t i) const { return results["runs"][i]; }
};

// A scenario of `workers` workers copying 1 MiB host to host (4 measured copies each, 1 warm-up)
// with `runs` ([[run]] tables and anything else), run with tests/payloads searched first.
Outcome run_scenario(const std::string& runs, const std::string& tag, int workers = 3,
                     const std::string& env = "") {
    fs::path dir = fresh_temp_dir(tag);
    fs::path file = dir / "interpreters.toml";
    std::ofstream(file) << "[scenario]\nname = \"interpreters-test\"\nbackend = \"host\"\n"
                           "[transfer]\ndirection = \"h2h\"\nbytes = \"1MiB\"\nrepetitions = 4\n"
                           "warmup = 1\n[threads]\ncount = "
                        << workers << "\n"
                        << runs;
    Outcome o;
    o.command = run_command(env + xferlab() + " run '" + file.string() + "' --quiet --out '" +
                            (dir / "out").string() + "' --payload-dir '" + XFER_SOURCE_DIR +
                            "/tests/payloads'");
    o.results = json::parse(slurp(dir / "out" / "results.json"));
    return o;
}

std::string notes_of(const json& run) { return run["notes"].dump(); }

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The interpreter ids interpreter_id.py noted, one per note.
std::set<int> noted_interpreters(const json& run, std::string& kind) {
    std::set<int> ids;
    for (const auto& n : run["notes"]) {
        const std::string note = n.get<std::string>();
        const auto at = note.find("payload: interpreter ");
        if (at == std::string::npos) continue;
        ids.insert(std::stoi(note.substr(at + 21)));
        kind = note.substr(note.find('(', at));
    }
    return ids;
}

}  // namespace

TEST_CASE("python-ft runs every worker as a Python thread without a GIL in one xferlab-ft process",
          "[integration][interpreters]") {
    if (!free_threaded_expected()) return;
    auto o =
        run_scenario("[[run]]\nlauncher = \"python-ft\"\npayload = \"interpreter_id.py\"\n", "ft");
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const json& run = o.run(0);
    CHECK(run["status"].get<std::string>() == "ok");
    CHECK(measured_per_worker(run) == std::map<int, int>{{0, 4}, {1, 4}, {2, 4}});
    std::set<int> pids;
    for (const auto& t : run["thread_infos"]) {
        CHECK(t["launcher"].get<std::string>() == "python-ft");
        CHECK(t["python_thread"].get<bool>());
        CHECK(t["gil_held"].is_null());  // no GIL to hold or release
        CHECK(t["pid"].get<int>() != 0);
        pids.insert(t["pid"].get<int>());
    }
    CHECK(run["thread_infos"].size() == 3);
    CHECK(pids.size() == 1);  // one worker process
    const std::string notes = notes_of(run);
    INFO(notes);
    std::string kind;
    CHECK(noted_interpreters(run, kind) == std::set<int>{0});  // its main interpreter
    CHECK(kind == "(main True, gil False, free-threaded True): workers [0, 1, 2]");
    CHECK(has(notes, "no GIL: CPython 3.13"));
    CHECK(has(notes, "sys._is_gil_enabled() False at the run's start and end"));
    CHECK(has(notes, "1 worker process (xferlab-ft worker) ran the run's 3 workers"));
}

TEST_CASE("python-ft: the GIL canary says no GIL, and its samples land inside the copies",
          "[integration][interpreters]") {
    if (!free_threaded_expected()) return;
    // 64 MiB copies, and on until a sample lands inside one: on a loaded machine the canary may
    // wait for a CPU (as in test_python_gil).
    auto o = run_scenario(
        "[params]\nuntil_inside = true\n[[run]]\nlauncher = \"python-ft\"\n"
        "payload = \"canary.py\"\ntransfer.bytes = \"64MiB\"\n",
        "ft-canary", 1);
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const std::string notes = notes_of(o.run(0));
    INFO(notes);
    const auto at = notes.find("canary: ");
    REQUIRE(at != std::string::npos);
    CHECK(std::stoi(notes.substr(at + 8)) > 0);  // samples taken while worker 0 copied
    CHECK(has(notes.substr(at), "copies (no GIL)"));
}

TEST_CASE("python-ft: an exception in a payload thread fails the run with its traceback",
          "[integration][interpreters]") {
    if (!free_threaded_expected()) return;
    auto o = run_scenario("[[run]]\nlauncher = \"python-ft\"\npayload = \"raise_in_worker.py\"\n",
                          "ft-raise");
    CHECK(o.command.exit_code == 1);
    const json& run = o.run(0);
    CHECK(run["status"].get<std::string>() == "failed");
    const std::string errors = run["errors"].dump();
    INFO(errors);
    CHECK(has(errors, "exception in payload thread 'xfer-py-1'"));
    CHECK(has(errors, "ValueError: worker 1 fails on purpose"));
    CHECK(has(errors, "raise_in_worker.py\\\", line "));  // the traceback's own frame
}

TEST_CASE("python-subinterp runs each worker in a sub-interpreter of its own, with its own GIL",
          "[integration][interpreters]") {
    if (!subinterpreters_expected()) return;
    auto o = run_scenario(
        "[[run]]\nlauncher = \"python-subinterp\"\npayload = \"interpreter_id.py\"\n", "sub", 4);
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    const json& run = o.run(0);
    CHECK(run["status"].get<std::string>() == "ok");
    CHECK(measured_per_worker(run) == std::map<int, int>{{0, 4}, {1, 4}, {2, 4}, {3, 4}});
    std::set<int> pids;
    for (const auto& t : run["thread_infos"]) {
        CHECK(t["launcher"].get<std::string>() == "python-subinterp");
        CHECK(t["python_thread"].get<bool>());
        CHECK(t["gil_held"] == false);  // its interpreter's GIL, released for the copy
        pids.insert(t["pid"].get<int>());
    }
    CHECK(pids.size() == 1);
    const std::string notes = notes_of(run);
    INFO(notes);
    std::string kind;
    const std::set<int> ids = noted_interpreters(run, kind);
    CHECK(ids.size() == 4);  // four interpreters, none of them the main one (id 0)
    CHECK(ids.count(0) == 0);
    CHECK(has(kind, "(main False, gil True, free-threaded False): workers ["));
    CHECK(has(notes, "4 sub-interpreters of CPython 3."));
    CHECK(has(notes, "each with its own GIL (PEP 684)"));
}

TEST_CASE("gil = hold: a shared GIL serializes the copies, a GIL per sub-interpreter does not",
          "[integration][interpreters]") {
    if (!subinterpreters_expected()) return;
    // 16 MiB copies: each takes milliseconds, and four workers leave the barrier together.
    auto o = run_scenario(
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\ngil = \"hold\"\n"
        "transfer.bytes = \"16MiB\"\n"
        "[[run]]\nlauncher = \"python-subinterp\"\npayload = \"threads.py\"\ngil = \"hold\"\n"
        "transfer.bytes = \"16MiB\"\n",
        "sub-hold", 4);
    INFO(o.command.err);
    REQUIRE(o.command.exit_code == 0);
    // The most calls of different workers in flight at one instant (every record counted).
    auto peak = [](const json& run) {
        std::vector<std::pair<int64_t, int>> edges;
        for (const auto& r : run["records"]) {
            edges.push_back({r["host_start_ns"].get<int64_t>(), 1});
            edges.push_back({r["host_end_ns"].get<int64_t>(), -1});
        }
        std::sort(edges.begin(), edges.end());  // an end before a start at the same instant
        int now = 0, most = 0;
        for (const auto& e : edges) most = std::max(most, now += e.second);
        return most;
    };
    CHECK(peak(o.run(0)) == 1);  // the one GIL held across every copy
    CHECK(peak(o.run(1)) >= 2);  // each worker holds only its own interpreter's GIL
}

TEST_CASE("python-subinterp: a payload error in one interpreter fails the run, the others copy on",
          "[integration][interpreters]") {
    if (!subinterpreters_expected()) return;
    auto o =
        run_scenario("[[run]]\nlauncher = \"python-subinterp\"\npayload = \"raise_in_worker.py\"\n",
                     "sub-raise");
    CHECK(o.command.exit_code == 1);
    const json& run = o.run(0);
    CHECK(run["status"].get<std::string>() == "failed");
    const std::string errors = run["errors"].dump();
    INFO(errors);
    CHECK(run["errors"].size() == 1);
    CHECK(has(errors, "worker 1 (sub-interpreter "));
    CHECK(has(errors, "exception in payload thread 'xfer-py-0'"));  // thread 0 of its interpreter
    CHECK(has(errors, "ValueError: worker 1 fails on purpose"));
    // The other interpreters are not stopped: as under launcher "process", their copies go on.
    // Worker 1 made its warm-up copy only.
    CHECK(measured_per_worker(run) == std::map<int, int>{{0, 4}, {2, 4}});
    int victim_copies = 0;
    for (const auto& r : run["records"]) victim_copies += r["worker"] == 1 ? 1 : 0;
    CHECK(victim_copies == 1);
}

TEST_CASE(
    "python-ft and python-subinterp runs are skipped with the reason where the interpreter "
    "is missing; the other runs run",
    "[integration][interpreters]") {
    auto o = run_scenario(
        "[[run]]\nlauncher = \"host\"\n"
        "[[run]]\nlauncher = \"python-ft\"\npayload = \"threads.py\"\n"
        "[[run]]\nlauncher = \"python-subinterp\"\npayload = \"threads.py\"\n",
        "missing", 2, "XFERLAB_SIBLING_DIR=/nonexistent-xferlab-siblings ");
    INFO(o.command.err);
    CHECK(o.command.exit_code == 0);
    CHECK(o.run(0)["status"].get<std::string>() == "ok");
    const json& ft = o.run(1);
    CHECK(ft["status"].get<std::string>() == "skipped");
    CHECK(ft["records"].empty());
    INFO(notes_of(ft));
    CHECK(has(notes_of(ft),
              "xferlab-ft (xferlab built against a free-threaded CPython 3.13, python3.13t) is "
              "needed, and there is none at /nonexistent-xferlab-siblings/xferlab-ft"));
    const json& sub = o.run(2);
    INFO(notes_of(sub));
    if (own_subinterpreters() == "supported") {
        CHECK(sub["status"].get<std::string>() == "ok");  // this xferlab runs them itself
    } else {
        CHECK(sub["status"].get<std::string>() == "skipped");
        CHECK(has(notes_of(sub), "this xferlab cannot run sub-interpreters with their own GIL ("));
        CHECK(has(notes_of(sub), "there is none at /nonexistent-xferlab-siblings/xferlab-py313"));
    }
}

TEST_CASE("threads.py: Python work between copies, calibrated or counted, noted per worker",
          "[integration][interpreters]") {
    auto o = run_scenario(
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\nparams.work_us = 20\n"
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\n"
        "params.work_iterations = 500\n"
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\nparams.work_us = 20\n"
        "params.batch = true\n",
        "work", 2);
    INFO(o.command.err);
    CHECK(o.command.exit_code == 1);  // the third run's settings are refused by the payload
    const std::string calibrated = notes_of(o.run(0)), counted = notes_of(o.run(1));
    INFO(calibrated);
    INFO(counted);
    CHECK(o.run(0)["status"].get<std::string>() == "ok");
    CHECK(has(calibrated, "iterations per copy, "));
    CHECK(has(calibrated, "us on one thread alone (work_us = 20, calibrated here)"));
    CHECK(has(calibrated, "python work per copy while the workers ran (p50/p90): w0 "));
    CHECK(has(calibrated, ", w1 "));
    CHECK(has(counted, "python work between copies: 500 iterations per copy"));
    CHECK(measured_per_worker(o.run(1)) == std::map<int, int>{{0, 4}, {1, 4}});
    const std::string refused = o.run(2)["errors"].dump();
    INFO(refused);
    CHECK(has(refused, "work between copies needs batch = false"));
}

TEST_CASE("xferlab threads shows a worker thread of python-ft and python-subinterp, or why not",
          "[integration][interpreters]") {
    const auto r = run_command(xferlab() + " threads");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> lines = lines_of(r.out);
    REQUIRE(lines.size() > 12);
    const std::string& header = lines[0];
    // The cell of `row` in the column headed `launcher` (columns are 21 characters wide).
    const auto cell = [&](const std::string& row, const std::string& launcher) {
        const size_t at = header.find(" " + launcher + " ");
        for (const std::string& line : lines)
            if (line.rfind(row, 0) == 0 && at != std::string::npos) {
                const std::string column = line.substr(at, 21);
                return column.substr(column.find_first_not_of(" *"));
            }
        return std::string();
    };
    const auto check = [&](const std::string& launcher, bool expected, const std::string& gil,
                           const std::string& process) {
        if (!expected) {
            CHECK(contains(r.out, launcher + ": not shown: "));
            return;
        }
        REQUIRE(contains(header, " " + launcher + " "));
        CHECK_FALSE(contains(r.out, launcher + ": not shown: "));
        CHECK(cell("python thread", launcher).rfind("yes", 0) == 0);
        CHECK(cell("GIL held", launcher).rfind(gil, 0) == 0);
        // Read in its worker process: another pid's thread, named after that executable.
        // Its first word: the last column of a line has no padding after it.
        const std::string name = cell("name", launcher);
        CHECK(name.substr(0, name.find(' ')) == process);
        CHECK(cell("tid", launcher) != cell("tid", "python"));
    };
    check("python-ft", free_threaded_expected(), "no GIL", "xferlab-ft");
    const bool own = own_subinterpreters() == "supported";
    check("python-subinterp", subinterpreters_expected(), "no", own ? "xferlab" : "xferlab-py313");
}
