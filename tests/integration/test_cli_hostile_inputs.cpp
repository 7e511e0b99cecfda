// Issue 54, items 2 and 5, through the CLI. A ~100 KB file with one key of 50,000 dotted parts
// (or a table header of 20,000) crashed `check`, `run`, `list` and `--config` (SIGSEGV in
// TOML++); `check /dev/zero` and `report /dev/zero` (and `list` with a link to /dev/zero in
// its folder) read until memory ran out; a FIFO as the scenario file, or in `list`'s folder,
// hung. Each command here runs under `timeout` (a hang fails as exit 124) and, outside
// sanitizer builds, a 4 GB address-space limit (an endless read fails instead of filling RAM).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

CommandResult bounded(const std::string& arguments) {
    const std::string command = "timeout -s KILL 60 " + xferlab() + " " + arguments;
    if (kSanitizerBuild) return run_command(command);
    return run_command("bash -c 'ulimit -v 4000000; exec \"$0\" \"$@\"' " + command);
}

std::string dotted(int n, const std::string& part) {
    std::string key = part;
    for (int i = 1; i < n; ++i) key += "." + part;
    return key;
}

// The small scenario with one more line: a key 50,000 parts deep in [params] (line 11).
fs::path deep_key_file(const fs::path& dir) {
    const fs::path file = write_small_scenario(dir, "deep");
    std::ofstream(file, std::ios::app) << "[params]\n" << dotted(50000, "a") << " = 1\n";
    return file;
}

const std::string kDepthRefusal =
    ":11:1: error: this key is nested 50001 levels deep (table header, dotted key parts, inline "
    "tables and arrays counted together); xferlab reads at most 256 levels";

}  // namespace

TEST_CASE("a key of 50,000 dotted parts: check, run, list and --config refuse it at its line",
          "[integration][limits]") {
    const fs::path dir = fresh_temp_dir("deep-key");
    const fs::path file = deep_key_file(dir);
    REQUIRE(fs::file_size(file) > 100000);
    for (const std::string& command :
         {std::string("check"), "run --quiet --out " + quoted(dir / "out")}) {
        const auto r = bounded(command + " " + quoted(file));
        INFO(command << ": " << r.err);
        CHECK(r.exit_code == 2);  // 139 before: SIGSEGV
        CHECK(contains(r.err, file.string() + kDepthRefusal));
    }
    CHECK_FALSE(fs::exists(dir / "out"));
    // A table header of 20,000 parts.
    const fs::path header = write_small_scenario(dir, "header");
    std::ofstream(header, std::ios::app) << "[params." << dotted(19999, "b") << "]\nx = 1\n";
    const auto h = bounded("check " + quoted(header));
    CHECK(h.exit_code == 2);
    CHECK(contains(h.err, header.string() + ":10:2: error: this table header is nested 20000 "
                                            "levels deep"));
    // A --set key of 65,000 parts (one argument of 130 KB): SIGSEGV in `check` before, and
    // 30,000 in a Python run. xferlab splits the key itself; the same bound holds.
    const auto set = bounded("check " + quoted(write_small_scenario(dir, "small")) +
                             " --set params." + dotted(65000, "a") + "=1");
    CHECK(set.exit_code == 2);
    CHECK(contains(set.err,
                   "--set:1:1: error: params.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a...: "
                   "this key is nested 65001 levels deep"));
    // As a config file: the same refusal, before the command does anything.
    const auto config = bounded("list --config " + quoted(file));
    CHECK(config.exit_code == 2);
    CHECK(contains(config.err, file.string() + kDepthRefusal));
    // In list's folder: that file is listed as invalid, the others as they are.
    const fs::path folder = dir / "scenarios";
    fs::create_directory(folder);
    fs::copy_file(file, folder / "deep.toml");
    write_small_scenario(folder, "fine");
    std::ofstream(dir / "list.toml") << "[run]\nscenario_dir = " << quoted(folder) << "\n";
    const auto list = bounded("list --config " + quoted(dir / "list.toml"));
    INFO(list.err);
    CHECK(list.exit_code == 0);
    CHECK(contains(list.out, "deep.toml                          (invalid: 1 error(s)"));
    CHECK(contains(list.out, "fine.toml"));
    fs::remove_all(dir);
}

TEST_CASE("endless inputs: /dev/zero and FIFOs are refused by name, without reading or waiting",
          "[integration][limits]") {
    const fs::path dir = fresh_temp_dir("endless");
    const fs::path fifo = dir / "fifo.toml";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string device =
        "it is a character device, not a regular file: xferlab reads "
        "only regular files (a device such as /dev/zero never ends)";
    const std::string pipe = "it is a FIFO (named pipe), not a regular file";

    const auto check = bounded("check /dev/zero");
    CHECK(check.exit_code == 2);
    CHECK(contains(check.err, "/dev/zero: error: cannot read the scenario file: " + device));
    const auto report = bounded("report /dev/zero");
    CHECK(report.exit_code == 2);
    CHECK(contains(report.err, "xferlab: /dev/zero cannot be opened: " + device));
    for (const std::string& command :
         {std::string("check"), "run --quiet --out " + quoted(dir / "out")}) {
        const auto r = bounded(command + " " + quoted(fifo));
        INFO(command << ": " << r.err);
        CHECK(r.exit_code == 2);  // 137 before (killed by the timeout: open() waited)
        CHECK(contains(r.err, fifo.string() + ": error: cannot read the scenario file: " + pipe));
    }
    const auto config = bounded("list --config " + quoted(fifo));
    CHECK(config.exit_code == 2);
    CHECK(contains(config.err, fifo.string() + ": error: cannot read the config file: " + pipe));
    const auto results = bounded("report " + quoted(fifo));
    CHECK(results.exit_code == 2);
    CHECK(contains(results.err, fifo.string() + " cannot be opened: " + pipe));

    // list's folder holds a link to /dev/zero and a FIFO among its scenarios.
    const fs::path folder = dir / "scenarios";
    fs::create_directory(folder);
    fs::create_symlink("/dev/zero", folder / "zero.toml");
    REQUIRE(::mkfifo((folder / "pipe.toml").c_str(), 0600) == 0);
    write_small_scenario(folder, "fine");
    std::ofstream(dir / "list.toml") << "[run]\nscenario_dir = " << quoted(folder) << "\n";
    const auto list = bounded("list --config " + quoted(dir / "list.toml"));
    INFO(list.err);
    CHECK(list.exit_code == 0);
    CHECK(contains(list.out, "zero.toml                          (invalid: 1 error(s)"));
    CHECK(contains(list.out, "pipe.toml                          (invalid: 1 error(s)"));
    CHECK(contains(list.out, "fine.toml"));
    fs::remove_all(dir);
}
