#include "results/results_reader.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <vector>

#include "results/folder_files.hpp"
#include "results/journal_reader.hpp"
#include "results/record_store.hpp"
#include "results/results_checks.hpp"
#include "results/runs_on_disk.hpp"
#include "results/serialize.hpp"
#include "util/input_file.hpp"
#include "util/terminal_text.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

// The files `report` reads that `run` left in `dir`.
std::vector<std::string> readable_in(const fs::path& dir) {
    std::vector<std::string> there;
    for (const char* name : kReadOrder)
        if (fs::is_regular_file(dir / name)) there.push_back((dir / name).string());
    return there;
}

// "DIR/results.json (or DIR/journal.jsonl)", or what to look for.
std::string what_to_give(const fs::path& dir) {
    const auto there = readable_in(dir);
    if (there.empty())
        return "the results.json (or results.sqlite, or journal.jsonl) that `xferlab run` wrote";
    std::string others;
    for (size_t i = 1; i < there.size(); ++i) others += (i > 1 ? ", or " : "") + there[i];
    return there[0] + (others.empty() ? "" : " (or " + others + ")");
}

fs::path folder_of(const std::string& file) {
    const fs::path parent = fs::path(file).parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

// `why` may quote the file (a label, a line of a journal): escaped for the terminal.
bool refuse(std::ostream& said, const std::string& file, const std::string& why) {
    said << "xferlab: " << file << " " << terminal_safe(why) << "\n";
    return false;
}

// A journal.jsonl (one run per line, written as each run ends) as Results: what is left when
// xferlab was killed before writing anything else. Each line also names its plan (tool
// version, host, scenario). Every whole run line is read; a line that is not one (the last
// one cut by a full disk or a kill, a cut one with later runs appended after it) is named on
// stderr and in the report's notes (Results::notes), so that a report never silently holds
// fewer runs than the journal. A file in which no line is a run is refused.
bool read_journal_file(std::ostream& said, const std::string& file, const std::string& text,
                       Results& results) {
    JournalContents journal = read_journal(text);
    if (!journal.mixed.empty()) return refuse(said, file, journal.mixed);
    const std::vector<std::string> notes = journal_gap_notes(file, journal);
    for (const auto& note : notes) said << "xferlab: " << terminal_safe(note) << "\n";
    if (journal.results.runs.empty() && !notes.empty())
        return refuse(said, file, "holds no readable run: nothing to report");
    if (!journal.named_plan && !journal.results.runs.empty()) {
        said << "xferlab: " << file
             << ": its lines do not name the tool version and scenario (a journal written "
                "before they did): both are reported as unknown\n";
        journal.results.tool_version = journal.results.git_describe = "unknown";
    }
    if (const std::string problem = results_problem(journal.results); !problem.empty())
        return refuse(said, file, "is not a journal of one plan: " + problem);
    results = std::move(journal.results);
    results.notes.insert(results.notes.end(), notes.begin(), notes.end());
    results.complete = false;  // a journal alone never says whether the plan finished
    return true;
}

// A file that is not JSON, named by what it looks like.
bool refuse_text(std::ostream& said, const std::string& file, const std::string& text,
                 const std::string& error) {
    const std::string instead = what_to_give(folder_of(file));
    if (text.rfind("run,label,", 0) == 0)
        return refuse(said, file, "is the per-copy CSV (copies.csv), not results: give " + instead);
    if (fs::path(file).extension() == ".toml")
        return refuse(said, file,
                      "is a scenario file: `xferlab run " + file +
                          "` runs it, and `xferlab report` reads the results.json (or "
                          "journal.jsonl) that it writes");
    return refuse(said, file,
                  "is not an xferlab results.json (not JSON: " + error + "): give " + instead);
}

bool read_results_json(std::ostream& said, const std::string& file, const std::string& text,
                       Results& results) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        return refuse_text(said, file, text, json_error_text(e.what()));
    }
    const std::string instead = what_to_give(folder_of(file));
    if (j.is_object() && j.contains("traceEvents"))
        return refuse(
            said, file,
            "is a Chrome trace (open it in the Perfetto UI), not results: give " + instead);
    static const std::string kOtherJson =
        "is JSON but not an xferlab results.json (it has no schema_version): give ";
    if (!j.is_object() || !j.contains("schema_version"))
        return refuse(said, file, kOtherJson + instead);
    try {
        results = results_from_json(j);
    } catch (const std::exception& e) {
        return refuse(said, file,
                      "is not a readable xferlab results.json: " + json_error_text(e.what()));
    }
    return true;
}

// What SQLite writes at the start of every database file.
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

bool starts_as_sqlite(int fd) {
    char head[16] = {};
    return ::pread(fd, head, sizeof head, 0) == ssize_t(sizeof head) &&
           std::string_view(head, sizeof head) == kSqliteMagic;
}

bool read_store(std::ostream& said, const std::string& file, Results& results) {
    try {
        results = read_record_store(file);
    } catch (const std::exception& e) {
        said << "xferlab: " << terminal_safe(e.what()) << "\n";
        return false;
    }
    return true;
}

// Runs of more than output.inline_records copies left their records out of results.json and the
// journal: they are loaded from the results.sqlite next to `file`.
bool load_records_kept_apart(std::ostream& said, const std::string& file, Results& results) {
    std::string store;
    for (const auto& run : results.runs)
        if (!run.records_file.empty()) store = (folder_of(file) / run.records_file).string();
    if (store.empty()) return true;
    if (!fs::exists(store))
        return refuse(said, file,
                      "keeps the records of its larger runs in " + store +
                          ", which is missing: copy it next to " + file);
    if (const std::string why = not_regular_file(store); !why.empty())
        return refuse(
            said, file,
            "keeps the records of its larger runs in " + store + ", which cannot be read: " + why);
    try {
        load_stored_records(store, results);
    } catch (const std::exception& e) {
        return refuse(said, file,
                      "keeps the records of its larger runs in " + store +
                          ", which cannot be read: " + e.what());
    }
    if (const std::string problem = results_problem(results); !problem.empty())
        return refuse(said, file,
                      "keeps the records of its larger runs in " + store +
                          ", which holds what no plan can: " + problem);
    return true;
}

// The file beside an incomplete results.json of `runs` runs that holds more of the plan:
// results.sqlite, else the journal (both are written before results.json after every run, and
// results.json's rewrite may fail, or be skipped to save time, where theirs did not). Its name
// and count, or nothing.
std::optional<std::pair<fs::path, size_t>> fuller_beside(const fs::path& dir, size_t runs) {
    std::optional<std::pair<fs::path, size_t>> best;
    std::error_code ec;
    const fs::path store = dir / kRecordStoreFile;
    if (fs::is_regular_file(store, ec)) {
        try {
            const auto n = size_t(stored_run_count(store.string()));
            if (n > runs) best = {store, n};
        } catch (const std::exception&) {
            // unreadable: not the fuller file
        }
    }
    const fs::path journal = dir / kJournalFile;
    if (fs::is_regular_file(journal, ec)) {
        const size_t n = journal_run_count(journal);
        if (n > (best ? best->second : runs)) best = {journal, n};
    }
    return best;
}

// After exit 3, results.json may hold fewer runs than the files beside it (issue 54, item 13):
// `report DIR` showed results.json's 1 run where the journal and results.sqlite held 8, without
// a word. Given the folder, the fuller file is read instead; given results.json itself, it is
// read and the report says where the other runs are.
std::optional<Results> fuller_than(std::ostream& said, const std::string& file, Results results,
                                   bool folder_given) {
    if (results.complete || fs::path(file).filename() != kResultsJsonFile) return results;
    const auto fuller = fuller_beside(folder_of(file), results.runs.size());
    if (!fuller) return results;
    const std::string other = fuller->first.string();
    const std::string holds = fmt::format(
        "{} holds {} run(s) of a plan that did not complete (as last written); {} holds {}", file,
        results.runs.size(), other, fuller->second);
    if (!folder_given) {
        const std::string note = holds + ": `xferlab report " + other + "` reads them";
        said << "xferlab: note: " << terminal_safe(note) << "\n";
        results.notes.push_back(note);
        return results;
    }
    const std::string note = holds + ": read from there";
    said << "xferlab: note: " << terminal_safe(note) << "\n";
    std::optional<Results> read = read_results(other, said);
    if (read) read->notes.insert(read->notes.begin(), note);
    return read;
}

}  // namespace

std::string results_file_in(const std::string& file) {
    std::error_code ec;
    if (!fs::is_directory(file, ec)) return file;
    const auto there = readable_in(file);
    return there.empty() ? file : there.front();
}

std::optional<Results> read_results(const std::string& given, std::ostream& said) {
    const std::string file = results_file_in(given);
    std::error_code ec;
    const bool folder_given = fs::is_directory(given, ec);
    if (fs::is_directory(file, ec)) {
        refuse(said, file,
               "is a folder with no results.json, results.sqlite or journal.jsonl in it: give " +
                   what_to_give(file));
        return std::nullopt;
    }
    // A regular file only (a FIFO waits for a writer, /dev/zero never ends), opened without
    // blocking, and its text at most kMaxResultsInputBytes.
    std::string why;
    const int fd = open_regular_file(file, why);
    if (fd < 0) {
        refuse(said, file, "cannot be opened: " + why);
        return std::nullopt;
    }
    const bool sqlite = starts_as_sqlite(fd);
    ::close(fd);
    Results results;
    if (sqlite) {
        if (!read_store(said, file, results)) return std::nullopt;
        return results;
    }
    if (fs::path(file).extension() == ".sqlite") {
        refuse(said, file,
               "is not an SQLite database (it does not start with SQLite's header): give " +
                   what_to_give(folder_of(file)));
        return std::nullopt;
    }
    const auto text = read_input_file(file, kMaxResultsInputBytes, why);
    if (!text) {
        refuse(said, file, "cannot be read: " + why);
        return std::nullopt;
    }
    if (fs::path(file).extension() == ".jsonl") {
        if (!read_journal_file(said, file, *text, results)) return std::nullopt;
    } else {
        if (!read_results_json(said, file, *text, results)) return std::nullopt;
    }
    if (!load_records_kept_apart(said, file, results)) return std::nullopt;
    return fuller_than(said, file, std::move(results), folder_given);
}

}  // namespace xfer
