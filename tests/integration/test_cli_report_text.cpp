// The terminal report as a reader sees it: a failed payload's traceback keeps its layout, and
// the summary names the exception.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A payload whose thread raises in the middle of an expression, so that Python (3.11 and later)
// puts a caret line under the failing operator.
void write_raising_payload(const fs::path& dir) {
    std::ofstream(dir / "raises.py") << "import threading\n"
                                        "\n"
                                        "def work(ctx, i):\n"
                                        "    values = {\"a\": 1}\n"
                                        "    return values[\"a\"] / 0\n"
                                        "\n"
                                        "def main(ctx):\n"
                                        "    t = threading.Thread(target=work, args=(ctx, 0))\n"
                                        "    t.start()\n"
                                        "    t.join()\n";
    std::ofstream(dir / "raises.toml") << "[scenario]\nname = \"raises\"\nbackend = \"host\"\n"
                                          "[transfer]\nbytes = \"64KiB\"\n"
                                          "[[run]]\nlauncher = \"host\"\n"
                                          "[[run]]\nlauncher = \"python\"\n"
                                          "payload = \"raises.py\"\n";
}

}  // namespace

TEST_CASE("a payload thread's traceback keeps its indentation, the summary names the exception",
          "[integration][report]") {
    auto dir = fresh_temp_dir("traceback");
    write_raising_payload(dir);
    auto out = dir / "out";
    auto r =
        run_command(xferlab() + " run '" + (dir / "raises.toml").string() + "' --payload-dir '" +
                    dir.string() + "' --quiet --out '" + out.string() + "'");
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 1);
    const auto results = nlohmann::json::parse(slurp(out / "results.json"));
    const std::string error = results["runs"][1]["errors"][0].get<std::string>();
    REQUIRE(contains(error, "exception in payload thread"));
    REQUIRE(contains(error, "ZeroDivisionError: division by zero"));

    // Every line of the traceback after the first is printed after a 4-blank prefix exactly
    // as Python wrote it, blanks included.
    const std::vector<std::string> table = lines_of(r.out);
    const std::vector<std::string> traceback = lines_of(error);
    for (size_t i = 1; i < traceback.size(); ++i) {
        if (traceback[i].empty()) continue;
        INFO(traceback[i]);
        CHECK(std::find(table.begin(), table.end(), "    " + traceback[i]) != table.end());
    }
    // So the caret (Python 3.11+) stands under the operator it points at.
    for (size_t i = 1; i < table.size(); ++i) {
        const size_t caret = table[i].find_first_not_of(' ');
        if (caret == std::string::npos || table[i].find_first_not_of(" ~^") != std::string::npos)
            continue;
        INFO(table[i - 1] + "\n" + table[i]);
        CHECK(table[i].find('^') == table[i - 1].find('/'));
    }

    // The summary's line for the failed run names the exception (the traceback's last line),
    // not the line that says which thread raised.
    const auto summary = r.out.substr(r.out.find("\nSummary\n"));
    CHECK(contains(summary,
                   "run 1 (python gil=release) failed: ZeroDivisionError: division by "
                   "zero"));
    CHECK_FALSE(contains(summary, "exception in payload thread"));
    fs::remove_all(dir);
}

TEST_CASE("run and report: --full, the concise default and --brief", "[integration][report]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-start.toml";
    auto out = fresh_temp_dir("brief");
    auto full = run_command(xferlab() + " run --full '" + seed.string() +
                            "' --set scenario.backend=host --set transfer.bytes=256KiB --quiet "
                            "--out '" +
                            (out / "full").string() + "'");
    REQUIRE(full.exit_code == 0);
    CHECK(contains(full.out, "\nRun 0: "));
    const std::string results_file = (out / "full" / "results.json").string();
    auto concise = run_command(xferlab() + " report '" + results_file + "'");
    auto brief = run_command(xferlab() + " report --brief '" + results_file + "'");
    INFO(concise.out);
    INFO(brief.out);
    CHECK(concise.exit_code == 0);
    CHECK(brief.exit_code == 0);
    // The command that ran, in all three.
    for (const auto* r : {&full, &concise, &brief})
        CHECK(contains(squeeze(r->out),
                       "command: " + std::string(XFER_BINARY) + " run --full " + seed.string() +
                           " --set scenario.backend=host --set transfer.bytes=256KiB --quiet"));
    CHECK(contains(concise.out, "\nWhat ran (every run; the settings at their defaults: --full)\n"));
    CHECK(contains(full.out, "\nWhat ran (every run)\n"));
    CHECK_FALSE(contains(brief.out, "What ran"));
    for (const auto* r : {&concise, &brief}) {
        CHECK(contains(r->out, "\nRuns\n"));
        CHECK(contains(r->out, "\nBandwidth\n"));
        CHECK(contains(r->out, "\nSummary\n"));
        CHECK_FALSE(contains(r->out, "\nRun 0: "));
        // The summary is the full table's, word for word.
        const std::string summary = r->out.substr(r->out.find("\nSummary\n"));
        CHECK(full.out.substr(full.out.find("\nSummary\n"))
                  .rfind(summary.substr(0, summary.find("\nEach run's")), 0) == 0);
    }
    CHECK(lines_of(brief.out).size() < lines_of(concise.out).size());
    CHECK(lines_of(concise.out).size() < lines_of(full.out).size());

    // run --brief: the same text on the terminal; the files in the results folder are complete.
    auto run_brief = run_command(xferlab() + " run '" + seed.string() +
                                 "' --set scenario.backend=host --set transfer.bytes=256KiB "
                                 "--quiet --brief --out '" +
                                 (out / "brief").string() + "'");
    INFO(run_brief.err);
    CHECK(run_brief.exit_code == 0);
    CHECK_FALSE(contains(run_brief.out, "\nRun 0: "));
    CHECK(contains(run_brief.out, "\nSummary\n"));
    CHECK(fs::file_size(out / "brief" / "copies.csv") > 0);
    const auto results = nlohmann::json::parse(slurp(out / "brief" / "results.json"));
    CHECK(results["runs"].size() ==
          nlohmann::json::parse(slurp(out / "full" / "results.json"))["runs"].size());
    CHECK(results["command"]["argv"].size() == 11);
    CHECK(results["command"]["cwd"] == fs::current_path().string());
    const auto both = run_command(xferlab() + " report --brief --full '" + results_file + "'");
    CHECK(both.exit_code == 2);
    CHECK(contains(both.err, "--brief excludes --full"));
    fs::remove_all(out);
}

TEST_CASE("a host run's report names what ran: direction, host memory and the command line",
          "[integration][report]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-gil.toml";
    auto out = fresh_temp_dir("what-ran");
    const std::string sets =
        " --set scenario.backend=host --set transfer.bytes=256KiB --set transfer.direction=d2h"
        " --set transfer.host_memory=pageable --trials 1";
    auto r = run_command(xferlab() + " run -q '" + seed.string() + "'" + sets + " --out '" +
                         (out / "r").string() + "'");
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string text = squeeze(r.out);
    CHECK(
        contains(text, "command: " + std::string(XFER_BINARY) + " run -q " + seed.string() + sets));
    // The default report names the settings that are not at their defaults (d2h, the size, the
    // backend); host_memory = pageable is the default.
    CHECK(contains(text,
                   "What ran (every run; the settings at their defaults: --full) run: backend = "
                   "host transfer: direction = d2h, bytes = 256 KiB,"));
    CHECK_FALSE(contains(text, "host_memory = pageable"));
    // The runs differ in launcher, payload and gil: said per run, and not in the common block.
    CHECK(contains(text, "python gil=hold: launcher = python, payload = threads.py, gil = hold"));
    CHECK(contains(text, "host: launcher = host, payload = none, gil = -"));
    // A file written before the command line was recorded says so.
    auto j = nlohmann::json::parse(slurp(out / "r" / "results.json"));
    j.erase("command");
    std::ofstream(out / "old.json") << j.dump();
    auto old = run_command(xferlab() + " report '" + (out / "old.json").string() + "'");
    CHECK(contains(old.out, "command: not recorded (results written before xferlab recorded it)"));
    fs::remove_all(out);
}

TEST_CASE("brief or full with a format other than the table is refused, exit 2",
          "[integration][report]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-start.toml";
    auto dir = fresh_temp_dir("brief-json");
    auto r = run_command(xferlab() + " run '" + seed.string() +
                         "' --set scenario.backend=host --brief --format json --out '" +
                         (dir / "out").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err,
                   "--brief sets how much the table says (--format table); --format json always "
                   "writes everything"));
    CHECK_FALSE(fs::exists(dir / "out"));
    auto report = run_command(xferlab() + " report --brief --format csv '" +
                              (dir / "none.json").string() + "'");
    CHECK(report.exit_code == 2);
    CHECK(contains(report.err, "--format csv always writes everything"));
    auto full = run_command(xferlab() + " report --full --format json '" +
                            (dir / "none.json").string() + "'");
    CHECK(full.exit_code == 2);
    CHECK(contains(full.err, "xferlab: --full sets how much the table says"));
    fs::remove_all(dir);
}
