// Results that are never mixed, torn or silently short (issue #28): one run per output folder
// (a lock, default names that never collide), a failed write that stops the plan with exit 3
// and says where the completed runs are, journals of whole lines, sizes checked before
// anything is allocated, --set flags that are not UTF-8, every scenario file checked before
// the first runs.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/spawn.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// A host-backend scenario of `runs` short runs named `name`.
fs::path write_short_scenario(const fs::path& dir, const std::string& name, int runs,
                              int repetitions = 3) {
    const fs::path file = dir / (name + ".toml");
    std::ofstream out(file);
    out << "[scenario]\nname = \"" << name << "\"\nbackend = \"host\"\n"
        << "[transfer]\nbytes = \"64KiB\"\nrepetitions = " << repetitions << "\nwarmup = 1\n"
        << "[threads]\ncount = 2\n";
    for (int i = 0; i < runs; ++i)
        out << "[[run]]\nlauncher = \"host\"\nlabel = \"r" << i << "\"\n";
    return file;
}

// Every line of `dir`/journal.jsonl parsed; a line that does not parse fails the test.
std::vector<json> journal_lines(const fs::path& dir) {
    std::vector<json> lines;
    std::ifstream in(dir / "journal.jsonl");
    for (std::string line; std::getline(in, line);) {
        INFO(line.substr(0, 200));
        const json j = json::parse(line, nullptr, false);
        CHECK_FALSE(j.is_discarded());
        lines.push_back(j);
    }
    return lines;
}

// Runs two shell commands at once (their output in `dir`/a.out, a.err, b.out, b.err); their
// exit codes.
std::pair<int, int> run_pair(const std::string& a, const std::string& b, const fs::path& dir) {
    const fs::path script = dir / "pair.sh";
    std::ofstream(script) << "(" << a << ") >'" << (dir / "a.out").string() << "' 2>'"
                          << (dir / "a.err").string() << "' & pa=$!\n(" << b << ") >'"
                          << (dir / "b.out").string() << "' 2>'" << (dir / "b.err").string()
                          << "' & pb=$!\nwait $pa; ea=$?; wait $pb; eb=$?\necho $ea $eb\n";
    const CommandResult r = run_command("sh '" + script.string() + "'");
    std::istringstream codes(r.out);
    int ea = -1, eb = -1;
    codes >> ea >> eb;
    return {ea, eb};
}

}  // namespace

TEST_CASE("two runs into one --out folder at once: one runs, the other is refused, never mixed",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("race");
    const fs::path a = write_short_scenario(dir, "alpha", 3);
    const fs::path b = write_short_scenario(dir, "beta", 3);
    const fs::path out = dir / "out";
    // Bounded: each try is two short host runs (under a second each here).
    for (int attempt = 0; attempt < 6; ++attempt) {
        INFO("attempt " << attempt);
        fs::remove_all(out);
        const auto [ea, eb] =
            run_pair(xferlab() + " run -q '" + a.string() + "' --out '" + out.string() + "'",
                     xferlab() + " run -q '" + b.string() + "' --out '" + out.string() + "'", dir);
        const std::string err_a = slurp(dir / "a.err"), err_b = slurp(dir / "b.err");
        INFO(err_a);
        INFO(err_b);
        // Exactly one ran; the other was refused before it ran anything: the folder was in use
        // or already held the first one's output, by which of the two it came second.
        REQUIRE(((ea == 0 && eb == 2) || (ea == 2 && eb == 0)));
        const std::string& refused = ea == 2 ? err_a : err_b;
        CHECK((contains(refused, "is in use by another xferlab run (pid ") ||
               contains(refused, "already holds the output of an earlier run")));
        CHECK(contains(refused, ": nothing was run"));
        const std::string winner = ea == 0 ? "alpha" : "beta";
        const auto lines = journal_lines(out);
        CHECK(lines.size() == 3);
        for (const json& line : lines)
            CHECK(line.at("plan").at("scenario").at("scenario").at("name") == winner);
        CHECK(run_command(xferlab() + " report '" + (out / "results.sqlite").string() + "'")
                  .exit_code == 0);
        CHECK_FALSE(fs::exists(out / ".xferlab.lock"));  // removed when the run ended
    }
    fs::remove_all(dir);
}

TEST_CASE("runs started in the same second with the default folder name get folders of their own",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("same-second");
    const fs::path scenario = write_short_scenario(dir, "same", 2);
    const fs::path config = dir / "config.toml";
    std::ofstream(config) << "[output]\ndir = \""
                          << (dir / "results" / "{timestamp}-{scenario}").string() << "\"\n";
    const std::string cmd =
        xferlab() + " run -q --config '" + config.string() + "' '" + scenario.string() + "'";
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto [ea, eb] = run_pair(cmd, cmd, dir);
        INFO(slurp(dir / "a.err") << slurp(dir / "b.err"));
        CHECK(ea == 0);
        CHECK(eb == 0);
    }
    // Six runs, six folders, each with one plan's two journal lines.
    size_t folders = 0;
    for (const auto& entry : fs::directory_iterator(dir / "results")) {
        ++folders;
        CHECK(journal_lines(entry.path()).size() == 2);
    }
    CHECK(folders == 6);
    fs::remove_all(dir);
}

TEST_CASE("an --out folder held by a running xferlab is refused with the owner's pid",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("held");
    const fs::path out = dir / "out", ready = dir / "ready";
    const fs::path slow = dir / "slow.toml";
    std::ofstream(slow) << "[scenario]\nname = \"slow\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n[threads]\ncount = 1\n"
                           "[params]\nready_file = \""
                        << ready.string()
                        << "\"\n[[run]]\nlauncher = \"python\"\npayload = \"copy_forever.py\"\n";
    const std::string payloads = (fs::path(XFER_SOURCE_DIR) / "tests" / "payloads").string();
    Background first = start_background(xferlab() + " run -q '" + slow.string() + "' --out '" +
                                            out.string() + "' --payload-dir '" + payloads + "'",
                                        dir);
    REQUIRE(first.pid > 0);
    REQUIRE(wait_until([&] { return fs::exists(ready) || ::kill(first.pid, 0) != 0; }));
    REQUIRE(fs::exists(ready));
    const CommandResult second =
        run_command(xferlab() + " run -q '" + write_short_scenario(dir, "other", 1).string() +
                    "' --out '" + out.string() + "' --force");
    ::kill(first.pid, SIGINT);
    CHECK(wait_exit_code(first.pid) == 130);
    INFO(second.err);
    CHECK(second.exit_code == 2);
    // --force deletes an earlier run's files, never a running one's.
    CHECK(contains(second.err, "xferlab: output folder " + out.string() +
                                   " is in use by another xferlab run (pid " +
                                   std::to_string(first.pid) + ")"));
    for (const json& line : journal_lines(out))
        CHECK(line.at("plan").at("scenario").at("scenario").at("name") == "slow");
    fs::remove_all(dir);
}

TEST_CASE(
    "a write that fails mid-plan (file size limit): exit 3, whole journal lines, where "
    "each completed run is said",
    "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("full");
    const fs::path out = dir / "out";
    // Each run adds ~60 KiB of records to the journal and to every rewrite of results.json:
    // under a 256 KiB file size limit some file fails after a few runs, as on a filling disk.
    const fs::path scenario = write_short_scenario(dir, "full", 12, 100);
    const CommandResult r = run_command("ulimit -f 256 && " + xferlab() + " run -q '" +
                                        scenario.string() + "' --out '" + out.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(contains(r.err, "xferlab: the results could not be written ("));
    CHECK(contains(r.err, "File too large"));
    CHECK(contains(r.err, "the plan stopped there. On disk: "));
    CHECK(contains(r.err, "in " + (out / "journal.jsonl").string()));
    const auto lines = journal_lines(out);  // every line whole
    CHECK(lines.size() >= 1);
    CHECK(lines.size() < 12);
    const CommandResult report =
        run_command(xferlab() + " report '" + (out / "journal.jsonl").string() + "'");
    INFO(report.err);
    CHECK(report.exit_code == 0);
    fs::remove_all(dir);
}

TEST_CASE("sizes beyond any machine are refused by check and run alike, before any allocation",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("sizes");
    const fs::path scenario = write_short_scenario(dir, "sizes", 1);
    for (const std::string size :
         {"18446744073709551615", "8589934592GiB", "9223372036854775808", "1125899906842625"}) {
        INFO(size);
        for (const std::string command : {"check", "run"}) {
            INFO(command);
            const CommandResult r = run_command(
                xferlab() + " " + command + " '" + scenario.string() +
                "' --set transfer.bytes=" + size + " --set threads.count=1" +
                (command == "check" ? "" : " -q --out '" + (dir / "out").string() + "'"));
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "of at most 1024TiB (more than any machine's memory)"));
        }
    }
    // The largest size taken: the preflight's arithmetic compares it with this machine.
    for (const std::string command : {"check", "run"}) {
        const CommandResult r =
            run_command(xferlab() + " " + command + " '" + scenario.string() +
                        "' --set transfer.bytes=1024TiB --set threads.count=4096");
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "more than this machine has"));
    }
    CHECK_FALSE(fs::exists(dir / "out"));
    fs::remove_all(dir);
}

TEST_CASE("a --set value that is not UTF-8 is replaced, noted, and every file written",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("utf8");
    const fs::path out = dir / "out";
    const fs::path payload = dir / "echo_param.py";
    std::ofstream(payload) << "def main(ctx):\n    w = ctx.worker(0)\n    w.copy()\n"
                              "    ctx.note('word=' + ctx.params['word'])\n";
    const fs::path scenario = dir / "u.toml";
    std::ofstream(scenario) << "[scenario]\nname = \"u\"\nbackend = \"host\"\n"
                               "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                               "[threads]\ncount = 1\n[params]\nword = \"x\"\n"
                               "[[run]]\nlauncher = \"python\"\npayload = \"echo_param.py\"\n";
    // 0xE9 is Latin-1's e-acute, as a shell in a Latin-1 locale would pass "café".
    const CommandResult r = run_command(xferlab() + " run '" + scenario.string() + "' --out '" +
                                        out.string() + "' --payload-dir '" + dir.string() +
                                        "' --set 'scenario.description=caf\xE9' --set "
                                        "'params.word=caf\xE9'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err,
                   "note: --set flag 1 is not valid UTF-8: its invalid bytes were "
                   "replaced by U+FFFD (scenario.description=caf\xEF\xBF\xBD)"));
    CHECK(contains(r.out, "input: --set flag 2 is not valid UTF-8"));
    const auto lines = journal_lines(out);
    REQUIRE(lines.size() == 1);
    const json results = json::parse(slurp(out / "results.json"));
    CHECK(results.at("scenario").at("scenario").at("description") == "caf\xEF\xBF\xBD");
    CHECK(contains(results.at("runs").at(0).at("notes").dump(), "word=caf\xEF\xBF\xBD"));
    CHECK(
        run_command(xferlab() + " report '" + (out / "results.sqlite").string() + "'").exit_code ==
        0);
    fs::remove_all(dir);
}

TEST_CASE("a scenario file that is not UTF-8 is an error at its line and column",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("utf8-file");
    const fs::path scenario = dir / "latin1.toml";
    std::ofstream(scenario) << "[scenario]\nname = \"latin1\"\ndescription = \"caf\xE9\"\n"
                               "[[run]]\nlauncher = \"host\"\n";
    for (const std::string& command :
         {std::string("check"), "run -q --out '" + (dir / "out").string() + "'"}) {
        const CommandResult r =
            run_command(xferlab() + " " + command + " '" + scenario.string() + "'");
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, scenario.string() + ":3:"));
    }
    CHECK_FALSE(fs::exists(dir / "out"));
    fs::remove_all(dir);
}

TEST_CASE("several scenario files: an error in the last means none runs",
          "[integration][integrity]") {
    const fs::path dir = fresh_temp_dir("files");
    const fs::path good = write_short_scenario(dir, "good", 1);
    const fs::path bad = dir / "bad.toml";
    std::ofstream(bad) << "[scenario]\nname = \"bad\"\n[threads]\ncount = \"many\"\n"
                          "[[run]]\nlauncher = \"host\"\n";
    const CommandResult r = run_command(xferlab() + " run -q '" + good.string() + "' '" +
                                        bad.string() + "' --out '" + (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, bad.string() + ":4:"));
    CHECK(contains(r.err,
                   "xferlab: nothing was run: every scenario file is checked before the "
                   "first runs, and 1 of 2 cannot run"));
    CHECK_FALSE(fs::exists(dir / "out" / "good" / "journal.jsonl"));
    fs::remove_all(dir);
}
