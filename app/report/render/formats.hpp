#pragma once
// Every format of the report, one row each: its name (`report --format`, `run --format`, the
// config's output.format and output.reporters), what it holds, its file in a results folder,
// whether it can be printed on the terminal, its reporter (report/render/reporter.hpp: the
// whole report in that format, to a stream), and when a results folder leaves its file out. The
// config's checks, the command line's choices and help, the results folder's writers
// (format_files.hpp) and the names `run --force` may delete all read this table.
//
// Adding a format: its reporter's file (a class implementing Reporter::write and its factory,
// declared below) and its row in formats(). This header is the header of every format's file, on
// purpose: a format is those two places and nothing else. Its file is written whole at the
// plan's end, atomically, into every results folder whose output.reporters names it.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "report/render/reporter.hpp"
#include "results/folder_files.hpp"
#include "results/run_result.hpp"

namespace xfer {

// What a reporter is made with: the terminal table's level of detail, the files' bounds.
struct FormatOptions {
    ReportDetail detail = ReportDetail::full;
    ReportLimits limits;
};

// A results folder, as a format's rule for leaving its file out sees it.
struct FolderOfFormats {
    std::filesystem::path dir;
    int64_t inline_records = 10000;  // output.inline_records
};

struct Format {
    std::string name;
    std::string summary;
    std::string file;      // its file in a results folder ("" for the terminal table: none)
    bool terminal = true;  // can be printed on the terminal (--format)
    std::unique_ptr<Reporter> (*make)(const FormatOptions&) = nullptr;
    // Why a results folder gets no file of this format for `results`, said in the run's closing
    // lines ("" when it gets one). nullptr: always written.
    std::string (*left_out)(const Results&, const FolderOfFormats&) = nullptr;
};

// The formats' reporters (their files: table_reporter.cpp, json_reporter.cpp, ...).
std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail = ReportDetail::full);
std::unique_ptr<Reporter> make_json_reporter();
std::unique_ptr<Reporter> make_csv_reporter();
std::unique_ptr<Reporter> make_runs_csv_reporter();
// At most `copies_per_run` copies of each run (0: all).
std::unique_ptr<Reporter> make_trace_reporter(size_t copies_per_run);

// copies.csv is left out once a run keeps its records in results.sqlite only (more than
// output.inline_records copies): one text row per copy costs about 100 bytes and over a second
// per million records, more than every other output together (docs/performance.md "Records at
// scale"), and the store holds the same rows, which `xferlab report results.sqlite --format
// csv` turns into that file on demand. Says so and how to get it (format_files.cpp).
std::string copies_csv_left_out(const Results& results, const FolderOfFormats& folder);

inline const std::vector<Format>& formats() {
    static const std::vector<Format> all = {
        {"table", "the terminal report", "", true,
         [](const FormatOptions& o) { return make_table_reporter(o.detail); }},
        {"json", "everything: settings, records, ThreadInfo, analysis", kResultsJsonFile, true,
         [](const FormatOptions&) { return make_json_reporter(); }},
        {"csv", "one row per copy", "copies.csv", true,
         [](const FormatOptions&) { return make_csv_reporter(); }, copies_csv_left_out},
        {"runs", "one row per run and per trial", "runs.csv", true,
         [](const FormatOptions&) { return make_runs_csv_reporter(); }},
        {"trace", "Chrome trace events for the Perfetto UI", "trace.json", false,
         [](const FormatOptions& o) { return make_trace_reporter(o.limits.trace_copies_per_run); }},
    };
    return all;
}

// nullptr when unknown.
inline const Format* find_format(const std::string& name) {
    for (const Format& f : formats())
        if (f.name == name) return &f;
    return nullptr;
}

// Every format's name, in the table's order.
inline std::vector<std::string> format_names() {
    std::vector<std::string> out;
    for (const Format& f : formats()) out.push_back(f.name);
    return out;
}
// The formats that write a file into a results folder (config output.reporters).
inline std::vector<std::string> file_format_names() {
    std::vector<std::string> out;
    for (const Format& f : formats())
        if (!f.file.empty()) out.push_back(f.name);
    return out;
}
// The formats that can be printed on the terminal (--format, config output.format).
inline std::vector<std::string> terminal_format_names() {
    std::vector<std::string> out;
    for (const Format& f : formats())
        if (f.terminal) out.push_back(f.name);
    return out;
}

}  // namespace xfer
