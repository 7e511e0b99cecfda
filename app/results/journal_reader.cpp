#include "results/journal_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "results/results_checks.hpp"
#include "results/serialize.hpp"

namespace xfer {

using nlohmann::json;

namespace {

// Parser messages quote what they last read; on a cut line that may be a long run of bytes.
constexpr size_t kJournalWhyChars = 160;
// Gaps named one by one; more than this (a file that is mostly not a journal) are summed up.
constexpr size_t kJournalGapsNamed = 5;

std::string journal_clipped(std::string why) {
    if (why.size() > kJournalWhyChars) why = why.substr(0, kJournalWhyChars) + "...";
    return why;
}

// The parser numbers lines and columns of its input, here one line of the file: "parse error
// at line 1, column 9: syntax error ..." becomes "not JSON at byte 9: syntax error ...", so
// that the only line number in the sentence is the file's.
std::string journal_parse_reason(const std::exception& e) {
    const std::string text = json_error_text(e.what());
    const std::string prefix = "parse error at line 1, column ";
    const size_t colon = text.find(": ");
    if (text.rfind(prefix, 0) != 0 || colon == std::string::npos)
        return journal_clipped("not JSON: " + text);
    return journal_clipped("not JSON at byte " + text.substr(prefix.size(), colon - prefix.size()) +
                           text.substr(colon));
}

// What names a plan in a journal line's "plan": everything but the host's Python, which `run`
// describes in full only once a run has started it (so the first lines say less of it).
json plan_identity(const json& line) {
    const auto plan = line.find("plan");
    if (plan == line.end() || !plan->is_object()) return json();
    json identity = *plan;
    if (auto host = identity.find("host"); host != identity.end() && host->is_object())
        host->erase("python");
    return identity;
}

// The first key in which two plans' identities differ, for the sentence.
std::string plan_difference(const json& a, const json& b) {
    for (const char* key : {"scenario", "command", "tool_version", "git_describe", "host"})
        if (a.value(key, json()) != b.value(key, json())) return key;
    return "plan";
}

// The runs read so far and the plan of the first line that named one: `mixed` is set at the
// first line that breaks them.
struct PlanWatch {
    json first_identity;
    size_t first_line = 0;
    std::map<int, size_t> run_line;  // run index -> the line that holds it
};

void watch_plan(const json& line_json, const RunResult& run, size_t number, PlanWatch& watch,
                JournalContents& c) {
    if (!c.mixed.empty()) return;
    const std::string lead = "holds the runs of more than one plan: ";
    if (json identity = plan_identity(line_json); !identity.is_null()) {
        if (watch.first_line == 0) {
            watch.first_identity = std::move(identity);
            watch.first_line = number;
        } else if (identity != watch.first_identity) {
            c.mixed = fmt::format("{}line {} names another plan than line {} (its {} differs)",
                                  lead, number, watch.first_line,
                                  plan_difference(identity, watch.first_identity));
            return;
        }
    }
    if (auto [at, fresh] = watch.run_line.emplace(run.position.index, number); !fresh)
        c.mixed = fmt::format("{}lines {} and {} both hold run {}", lead, at->second, number,
                              run.position.index);
}

// Adds the run on `line` to `c`; false, with the reason in `why`, when the line is not one.
bool add_journal_run(std::string_view line, size_t number, PlanWatch& watch, JournalContents& c,
                     std::string& why) {
    json j;
    try {
        j = json::parse(line);
    } catch (const std::exception& e) {
        why = journal_parse_reason(e);
        return false;
    }
    if (std::string number = number_no_field_holds(j); !number.empty()) {
        why = journal_clipped("not a run of a plan: " + number);
        return false;
    }
    try {
        RunResult run = j.get<RunResult>();
        // A run no plan could hold (a worker index of 10^9, a negative size) is left out like
        // any other unreadable line: the analysis would size its tables by it.
        if (std::string problem = run_problem(run, 0); !problem.empty()) {
            why = journal_clipped("not a run of a plan: " + problem);
            return false;
        }
        Results plan;
        if (read_journal_plan(j, plan) && plan.schema_version != kResultsSchema) {
            why = "its plan has results schema " + std::to_string(plan.schema_version) +
                  "; this xferlab reads schema " + std::to_string(kResultsSchema);
            return false;
        }
        // Only the first named line fills the plan: every line of one journal names the same
        // (watch_plan says where one does not).
        if (!c.named_plan) c.named_plan = read_journal_plan(j, c.results);
        watch_plan(j, run, number, watch, c);
        c.results.runs.push_back(std::move(run));
        c.run_lines.push_back(number);
    } catch (const std::exception& e) {
        why = journal_clipped("not an xferlab journal line: " + json_error_text(e.what()));
        return false;
    }
    return true;
}

// Where the whole run line appended after a cut one starts: the first '{' after the line's
// start from which the rest of the line is one JSON value that is a run. A '{' inside the cut
// part fails as soon as its own object ends (or at the cut), so the scan costs a parse of the
// line per level of nesting, not one per '{'.
bool add_appended_run(std::string_view line, size_t number, PlanWatch& watch, JournalContents& c,
                      size_t& at) {
    std::string ignored;
    for (at = line.find('{', 1); at != std::string_view::npos; at = line.find('{', at + 1)) {
        const std::string_view rest = line.substr(at);
        if (json::accept(rest) && add_journal_run(rest, number, watch, c, ignored)) return true;
    }
    return false;
}

// One line: its run, or the gap it leaves. `whole`: the line ended with a newline.
void read_journal_line(std::string_view line, size_t number, bool whole, PlanWatch& watch,
                       JournalContents& c) {
    std::string why;
    if (add_journal_run(line, number, watch, c, why)) return;
    if (!whole) {
        c.gaps.push_back({JournalGap::Kind::torn_end, number, line.size(), ""});
        return;
    }
    if (size_t at = 0; add_appended_run(line, number, watch, c, at)) {
        c.gaps.push_back({JournalGap::Kind::cut_then_run, number, at, ""});
        return;
    }
    c.gaps.push_back({JournalGap::Kind::unreadable, number, line.size(), why});
}

std::string runs_read(size_t n) { return n == 1 ? "1 run read" : fmt::format("{} runs read", n); }

std::string journal_gap_note(const std::string& file, const JournalGap& gap, size_t runs) {
    switch (gap.kind) {
        case JournalGap::Kind::torn_end:
            return fmt::format(
                "{}: its last line is incomplete ({} bytes, no newline): the run being written "
                "when the disk filled or the process died; {}",
                file, gap.bytes, runs_read(runs));
        case JournalGap::Kind::cut_then_run:
            return fmt::format(
                "{}: line {} is unreadable: its first {} bytes are a run cut short (the disk "
                "filled or the process died while it was written) and the next run's line "
                "follows them on the same line; that run is read, the cut one is left out; {}",
                file, gap.line, gap.bytes, runs_read(runs));
        case JournalGap::Kind::unreadable:
            break;
    }
    return fmt::format("{}: line {} is unreadable ({} bytes, {}): left out; {}", file, gap.line,
                       gap.bytes, gap.why, runs_read(runs));
}

}  // namespace

JournalContents read_journal(std::string_view text) {
    JournalContents c;
    PlanWatch watch;
    size_t number = 0;
    for (size_t begin = 0; begin < text.size();) {
        const size_t end = text.find('\n', begin);
        const bool whole = end != std::string_view::npos;
        const std::string_view line = text.substr(begin, (whole ? end : text.size()) - begin);
        begin = whole ? end + 1 : text.size();
        ++number;
        if (!line.empty()) read_journal_line(line, number, whole, watch, c);
    }
    return c;
}

std::vector<std::string> journal_gap_notes(const std::string& file,
                                           const JournalContents& contents) {
    const size_t runs = contents.results.runs.size();
    std::vector<std::string> notes;
    const size_t named = std::min(contents.gaps.size(), kJournalGapsNamed);
    for (size_t i = 0; i < named; ++i)
        notes.push_back(journal_gap_note(file, contents.gaps[i], runs));
    if (contents.gaps.size() > named) {
        std::vector<size_t> lines;  // the first few of them: enough to look at the file
        for (size_t i = named; i < contents.gaps.size() && lines.size() < kJournalGapsNamed; ++i)
            lines.push_back(contents.gaps[i].line);
        const size_t more = contents.gaps.size() - named;
        notes.push_back(fmt::format("{}: {} more lines are unreadable (lines {}{}): left out; {}",
                                    file, more, fmt::join(lines, ", "),
                                    more > lines.size() ? ", ..." : "", runs_read(runs)));
    }
    return notes;
}

}  // namespace xfer
