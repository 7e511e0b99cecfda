// results/journal_reader.cpp: a journal.jsonl gives every whole run line it holds; a last line
// cut by a full disk or a kill, and a cut line with later runs appended after it, are named
// (line, bytes, runs read) instead of failing the file or being skipped silently (issue 28).
#include <string>
#include <vector>

#include "results/journal_reader.hpp"
#include "results/serialize.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

Results journal_test_plan() {
    Results plan;
    plan.tool_version = "9.9";
    plan.git_describe = "abc";
    plan.host = host_from_json(nlohmann::json{{"hostname", "node07"}});
    plan.scenario = nlohmann::json{{"scenario", {{"name", "torn"}}}};
    for (int i = 0; i < 4; ++i) {
        RunResult r;
        r.position.index = i;
        r.position.label = "host " + std::to_string(i);
        r.settings.launcher = "host";
        plan.runs.push_back(r);
    }
    return plan;
}

// Run `i`'s journal line with its newline, as `run` appends it.
std::string journal_test_line(const Results& plan, size_t i) {
    return journal_line(plan, plan.runs.at(i)).dump() + "\n";
}

std::string first_half(const std::string& line) { return line.substr(0, line.size() / 2); }

std::vector<int> journal_test_indices(const JournalContents& c) {
    std::vector<int> out;
    for (const auto& r : c.results.runs) out.push_back(r.position.index);
    return out;
}

}  // namespace

TEST_CASE("a whole journal reads every run and names its plan, with no gaps",
          "[results][journal]") {
    const Results plan = journal_test_plan();
    std::string text;
    for (size_t i = 0; i < 4; ++i) text += journal_test_line(plan, i);
    const JournalContents c = read_journal(text);
    CHECK(journal_test_indices(c) == std::vector<int>{0, 1, 2, 3});
    CHECK(c.named_plan);
    CHECK(c.results.tool_version == "9.9");
    CHECK(c.gaps.empty());
    CHECK(journal_gap_notes("journal.jsonl", c).empty());
}

TEST_CASE("a journal's last line without its newline is left out and named with its size",
          "[results][journal]") {
    const Results plan = journal_test_plan();
    const std::string cut = first_half(journal_test_line(plan, 2));
    const JournalContents c =
        read_journal(journal_test_line(plan, 0) + journal_test_line(plan, 1) + cut);
    CHECK(journal_test_indices(c) == std::vector<int>{0, 1});
    REQUIRE(c.gaps.size() == 1);
    CHECK(c.gaps[0].kind == JournalGap::Kind::torn_end);
    CHECK(c.gaps[0].line == 3);
    CHECK(c.gaps[0].bytes == cut.size());
    CHECK(journal_gap_notes("journal.jsonl", c) ==
          std::vector<std::string>{"journal.jsonl: its last line is incomplete (" +
                                   std::to_string(cut.size()) +
                                   " bytes, no newline): the run being written when the disk "
                                   "filled or the process died; 2 runs read"});
}

TEST_CASE("a last line that lost only its newline is a whole run", "[results][journal]") {
    const Results plan = journal_test_plan();
    std::string last = journal_test_line(plan, 1);
    last.pop_back();
    const JournalContents c = read_journal(journal_test_line(plan, 0) + last);
    CHECK(journal_test_indices(c) == std::vector<int>{0, 1});
    CHECK(c.gaps.empty());
}

TEST_CASE(
    "a cut line with the next run appended after it: the cut run is named, the appended run "
    "and the lines after it are read",
    "[results][journal]") {
    // What a full disk that frees later leaves: run 1's write stopped half-way, run 2's line
    // was appended right after the cut bytes, run 3's on a line of its own.
    const Results plan = journal_test_plan();
    const std::string cut = first_half(journal_test_line(plan, 1));
    const JournalContents c = read_journal(journal_test_line(plan, 0) + cut +
                                           journal_test_line(plan, 2) + journal_test_line(plan, 3));
    CHECK(journal_test_indices(c) == std::vector<int>{0, 2, 3});
    REQUIRE(c.gaps.size() == 1);
    CHECK(c.gaps[0].kind == JournalGap::Kind::cut_then_run);
    CHECK(c.gaps[0].line == 2);
    CHECK(c.gaps[0].bytes == cut.size());
    CHECK(journal_gap_notes("j.jsonl", c) ==
          std::vector<std::string>{
              "j.jsonl: line 2 is unreadable: its first " + std::to_string(cut.size()) +
              " bytes are a run cut short (the disk filled or the process died while it was "
              "written) and the next run's line follows them on the same line; that run is "
              "read, the cut one is left out; 3 runs read"});
}

TEST_CASE("a whole line that is no run is named with the reason, the others are read",
          "[results][journal]") {
    const Results plan = journal_test_plan();
    const JournalContents c = read_journal(journal_test_line(plan, 0) + "{\"not\": \"a run\"}\n" +
                                           "\n" + journal_test_line(plan, 1) + "garbage\n");
    CHECK(journal_test_indices(c) == std::vector<int>{0, 1});
    REQUIRE(c.gaps.size() == 2);
    CHECK(c.gaps[0].line == 2);
    CHECK(c.gaps[1].line == 5);  // the empty line 3 counts as a line, and is no gap
    CHECK(c.gaps[1].kind == JournalGap::Kind::unreadable);
    const auto notes = journal_gap_notes("j.jsonl", c);
    REQUIRE(notes.size() == 2);
    CHECK(notes[0] ==
          "j.jsonl: line 2 is unreadable (16 bytes, not an xferlab journal line: key 'settings' "
          "not found): left out; 2 runs read");
    CHECK(notes[1] ==
          "j.jsonl: line 5 is unreadable (7 bytes, not JSON at byte 1: syntax error while "
          "parsing value - invalid literal; last read: 'g'): left out; 2 runs read");
}

TEST_CASE("past five gaps the rest are summed up in one note", "[results][journal]") {
    const Results plan = journal_test_plan();
    std::string text = journal_test_line(plan, 0);
    for (int i = 0; i < 12; ++i) text += "x\n";
    const JournalContents c = read_journal(text);
    const auto notes = journal_gap_notes("j.jsonl", c);
    REQUIRE(notes.size() == 6);
    CHECK(notes[5] ==
          "j.jsonl: 7 more lines are unreadable (lines 7, 8, 9, 10, 11, ...): left out; 1 run "
          "read");
}
