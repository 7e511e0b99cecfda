// `xferlab report journal.jsonl` of a journal a full disk or a kill left torn (issue 28): every
// whole run line is read, and the report says on stderr and in its summary which line was left
// out and how many runs it holds, instead of exiting 2 or dropping a run silently.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/serialize.hpp"
#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// The journal `run` would have written for the 12 runs of a committed fixture, one line each.
std::vector<std::string> torn_journal_lines() {
    const xfer::Results results =
        committed_results(fs::path(XFER_SOURCE_DIR) / "tests/fixtures/plots/trials.results.json");
    std::vector<std::string> lines;
    for (const auto& run : results.runs)
        lines.push_back(xfer::journal_line(results, run).dump() + "\n");
    return lines;
}

fs::path torn_write(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

std::string torn_half(const std::string& line) { return line.substr(0, line.size() / 2); }

// The table wraps summary lines at the terminal's width: joined again to search them.
std::string torn_unwrapped(const std::string& table) {
    std::string out;
    for (const auto& line : lines_of(table))
        out += line.rfind("    ", 0) == 0 ? " " + line.substr(4) : "\n" + line;
    return out;
}

// `report FILE` (table) and `report FILE --format json` both succeed, both print `note` on
// stderr and in their summary; returns the JSON report.
json torn_report(const fs::path& file, const std::string& note) {
    const auto table = run_command(xferlab() + " report '" + file.string() + "'");
    INFO(table.err);
    CHECK(table.exit_code == 0);
    CHECK(table.err == "xferlab: " + note + "\n");
    CHECK(contains(torn_unwrapped(table.out), "  - " + note));
    const auto js = run_command(xferlab() + " report '" + file.string() + "' --format json");
    REQUIRE(js.exit_code == 0);
    CHECK(js.err == table.err);
    const json report = json::parse(js.out);
    CHECK(report.at("notes") == json::array({note}));
    const auto& summary = report.at("summary");
    CHECK(std::find(summary.begin(), summary.end(), json(note)) != summary.end());
    return report;
}

std::vector<int> torn_indices(const json& report) {
    std::vector<int> out;
    for (const auto& run : report.at("runs")) out.push_back(run.at("index").get<int>());
    return out;
}

}  // namespace

TEST_CASE("report reads a journal whose last line is incomplete and says so",
          "[integration][journal]") {
    const fs::path dir = fresh_temp_dir("torn-end");
    const auto lines = torn_journal_lines();
    std::string text;
    for (size_t i = 0; i + 1 < lines.size(); ++i) text += lines[i];
    const std::string cut = torn_half(lines.back());
    const fs::path file = torn_write(dir / "journal.jsonl", text + cut);
    const json report = torn_report(
        file, file.string() + ": its last line is incomplete (" + std::to_string(cut.size()) +
                  " bytes, no newline): the run being written when the disk filled or the "
                  "process died; 11 runs read");
    CHECK(report.at("runs").size() == 11);
    fs::remove_all(dir);
}

TEST_CASE(
    "report reads a journal with a cut line in the middle, later runs appended after it, and "
    "names that line",
    "[integration][journal]") {
    const fs::path dir = fresh_temp_dir("torn-middle");
    const auto lines = torn_journal_lines();
    // Run 5's write stopped half-way (the disk filled); the disk freed, runs 6 to 11 appended.
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i) text += i == 5 ? torn_half(lines[i]) : lines[i];
    const fs::path file = torn_write(dir / "journal.jsonl", text);
    const json report = torn_report(
        file, file.string() + ": line 6 is unreadable: its first " +
                  std::to_string(torn_half(lines[5]).size()) +
                  " bytes are a run cut short (the disk filled or the process died while it was "
                  "written) and the next run's line follows them on the same line; that run is "
                  "read, the cut one is left out; 11 runs read");
    CHECK(torn_indices(report) == std::vector<int>{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11});
    fs::remove_all(dir);
}

TEST_CASE("a journal of one incomplete line holds nothing to report: exit 2, saying why",
          "[integration][journal]") {
    const fs::path dir = fresh_temp_dir("torn-only");
    const std::string cut = torn_half(torn_journal_lines().front());
    const fs::path file = torn_write(dir / "journal.jsonl", cut);
    const auto r = run_command(xferlab() + " report '" + file.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "xferlab: " + file.string() + ": its last line is incomplete (" +
                       std::to_string(cut.size()) +
                       " bytes, no newline): the run being written when the disk filled or the "
                       "process died; 0 runs read\nxferlab: " +
                       file.string() + " holds no readable run: nothing to report\n");
    fs::remove_all(dir);
}
