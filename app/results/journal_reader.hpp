#pragma once
// Reading journal.jsonl back: every whole run line it holds, and what had to be left out.
// `run` appends one line per completed run (serialize.hpp's journal_line). A full disk or a
// killed process leaves the last line without its newline; a write that failed half-way,
// followed by later appends, leaves a cut run with the next run's whole line after it on one
// line. Both are told apart here so that the report can say what it is missing.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// A line of the journal that gave no run, or only the run appended after a cut one.
struct JournalGap {
    enum class Kind {
        torn_end,      // the last line, without its newline, is not a whole run
        cut_then_run,  // a cut run, then a whole run's line appended to it: that run is read
        unreadable,    // a whole line that is not a run line
    };
    Kind kind = Kind::unreadable;
    size_t line = 0;   // 1-based, counting every '\n' of the file
    size_t bytes = 0;  // of what was left out
    std::string why;   // unreadable: the parser's reason
};

struct JournalContents {
    Results results;          // the runs read, under the plan the first of them names
    bool named_plan = false;  // false: no line named its plan (journals from before "plan")
    std::vector<JournalGap> gaps;
    std::vector<size_t> run_lines;  // the line of each run read, in results.runs' order
    // Set when the lines are not one plan's runs, saying where: "holds the runs of more than
    // one plan: line 3 names another plan than line 1 (its scenario differs)", "... lines 1
    // and 3 both hold run 0". A journal joined from two runs' journals rendered two "run 0"
    // rows without a word; a reader refuses such a journal.
    std::string mixed;
};

JournalContents read_journal(std::string_view text);

// The gaps as sentences for stderr and the report's notes, each naming `file` and the line and
// ending with how many runs were read; past a few gaps, the rest in one sentence.
std::vector<std::string> journal_gap_notes(const std::string& file,
                                           const JournalContents& contents);

}  // namespace xfer
