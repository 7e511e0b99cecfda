// Text from files reaches the terminal escaped (issue 48, item 7): a run label with an ESC
// sequence cleared the screen, a newline in it forged a report line, and a NUL cut the progress
// line short. Every control character is shown as an escape (\x1b, \n, \t, \x00) in the progress
// lines, the report at every level of detail, check's plan, list, compare and the messages that
// quote a file; results.json and copies.csv keep the text as it was (they quote it themselves).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// The label as the scenario file writes it (TOML escapes), as xferlab reads it, and as the
// terminal must show it. "FORGED" after the newline would start a line of its own.
const char* const kTomlLabel = R"(a\u001b[2Jb\nFORGED\tc\u0000d)";
const std::string kLabel = std::string("a\x1b[2Jb\nFORGED\tc") + '\0' + "d";
const std::string kShown = R"(a\x1b[2Jb\nFORGED\tc\x00d)";

fs::path hostile_scenario(const fs::path& dir) {
    const fs::path file = dir / "hostile.toml";
    std::ofstream(file) << "[scenario]\nname = \"hostile\"\nbackend = \"host\"\n"
                        << "description = \"clears\\u001b[2J\\nFORGED the screen\"\n"
                        << "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n"
                        << "[[run]]\nlauncher = \"host\"\nlabel = \"" << kTomlLabel << "\"\n";
    return file;
}

// The bytes a terminal would act on: every control character but the line break.
std::vector<int> raw_controls(const std::string& text) {
    std::vector<int> found;
    for (unsigned char c : text)
        if ((c < 0x20 && c != '\n') || c == 0x7f) found.push_back(c);
    return found;
}

bool a_line_starts_with(const std::string& text, const std::string& start) {
    for (const auto& line : lines_of(text))
        if (line.rfind(start, 0) == 0) return true;
    return false;
}

// What the terminal would get: no raw control character, no line the file's text began.
void check_terminal_text(const std::string& text, const std::string& forged = "FORGED") {
    INFO(text);
    CHECK(raw_controls(text).empty());
    CHECK_FALSE(a_line_starts_with(text, forged));
}

}  // namespace

TEST_CASE(
    "a label with ESC, a newline and NUL: the progress line and every report show it "
    "escaped, the files keep it",
    "[integration][control-characters]") {
    const auto dir = fresh_temp_dir("control-label");
    const fs::path out = dir / "out";
    const auto run =
        run_command(xferlab() + " run " + quoted(hostile_scenario(dir)) + " --out " + quoted(out));
    REQUIRE(run.exit_code == 0);
    check_terminal_text(run.out);
    check_terminal_text(run.err);
    // The progress line whole: the NUL cut it at "c" before.
    CHECK(contains(run.err, "[1/1] run 0: " + kShown + " (1 thread, copies of 64 KiB): ok"));
    CHECK(contains(run.out, kShown));
    for (const std::string detail : {"", " --full", " --brief"}) {
        INFO("report" << detail);
        const auto report = run_command(xferlab() + " report " + quoted(out) + detail);
        CHECK(report.exit_code == 0);
        check_terminal_text(report.out);
        CHECK(contains(report.out, kShown));
    }
    // The files hold the label as it was written; JSON and CSV quote it in their own way.
    CHECK(results_of(out)["runs"][0]["label"] == kLabel);
    CHECK(contains(slurp(out / "copies.csv"), "\"" + kLabel + "\""));
    // check's plan, list's descriptions and compare's pairs name it too.
    const auto check = run_command(xferlab() + " check " + quoted(dir / "hostile.toml"));
    CHECK(check.exit_code == 0);
    check_terminal_text(check.out);
    CHECK(contains(check.out, kShown));
    CHECK(contains(check.out, R"(clears\x1b[2J\nFORGED the screen)"));
    std::ofstream(dir / "list.toml") << "[run]\nscenario_dir = " << quoted(dir) << "\n";
    const auto list = run_command(xferlab() + " list --config " + quoted(dir / "list.toml"));
    CHECK(list.exit_code == 0);
    check_terminal_text(list.out);
    CHECK(contains(list.out, R"(clears\x1b[2J\nFORGED the screen)"));
    const auto compare = run_command(xferlab() + " compare " + quoted(out) + " " + quoted(out));
    CHECK(compare.exit_code == 0);
    check_terminal_text(compare.out);
    CHECK(contains(compare.out, kShown));
    fs::remove_all(dir);
}

TEST_CASE("notes, errors and host facts from a crafted results.json reach the report escaped",
          "[integration][control-characters]") {
    const auto dir = fresh_temp_dir("control-results");
    const fs::path out = dir / "out";
    REQUIRE(run_command(xferlab() + " run " + quoted(write_small_scenario(dir, "small")) +
                        " --quiet --out " + quoted(out))
                .exit_code == 0);
    json results = results_of(out);
    results["host"]["hostname"] = "host\x1b]0;title\x07\nFORGED host";
    results["runs"][0]["notes"] = {"a note\r\nFORGED note\x1b[31m"};
    results["runs"][0]["status"] = "failed";
    results["runs"][0]["errors"] = {"it broke\x1b[2J\nFORGED error\x08\x08"};
    std::ofstream(out / "results.json") << results.dump();
    for (const std::string detail : {"", " --full", " --brief"}) {
        INFO("report" << detail);
        const auto report = run_command(xferlab() + " report " + quoted(out) + detail);
        check_terminal_text(report.out);
        check_terminal_text(report.err);
        CHECK(contains(report.out, R"(host\x1b]0;title\x07\nFORGED host)"));
        CHECK(contains(report.out, R"(a note\r\nFORGED note\x1b[31m)"));
        if (detail != " --brief") CHECK(contains(report.out, R"(it broke\x1b[2J)"));
    }
    fs::remove_all(dir);
}

TEST_CASE("a message that quotes a scenario file shows its control characters escaped",
          "[integration][control-characters]") {
    const auto dir = fresh_temp_dir("control-messages");
    const fs::path file = dir / "bad.toml";
    std::ofstream(file)
        << "[scenario]\nname = \"bad\"\n\"key\\u001b[2J\\nFORGED\" = 1\n"
        << "[transfer]\nbytes = \"1\\u001b[31mMiB\"\n[[run]]\nlauncher = \"host\"\n";
    for (const std::string command : {" check ", " run --quiet "}) {
        INFO(command);
        const auto r = run_command(xferlab() + command + quoted(file));
        CHECK(r.exit_code == 2);
        check_terminal_text(r.err);
        CHECK(contains(r.err, R"(unknown key 'key\x1b[2J\nFORGED')"));
        CHECK(contains(r.err, R"(got "1\x1b[31mMiB")"));
    }
    fs::remove_all(dir);
}
