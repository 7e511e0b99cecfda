#include "cli/cmd_report.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/common_options.hpp"
#include "report/reporter.hpp"
#include "results/serialize.hpp"

namespace xfer {
namespace {

// A journal.jsonl (one run per line, written as each run ends) as Results holding only runs:
// what is left when xferlab was killed before writing anything else. A last line cut short by
// the kill is skipped with a warning; any other bad line makes the file unreadable.
bool read_journal(const std::string& file, std::istream& in, Results& results) {
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    for (size_t i = 0; i < lines.size(); ++i) {
        try {
            results.runs.push_back(nlohmann::json::parse(lines[i]).get<RunResult>());
        } catch (const std::exception& e) {
            if (i + 1 == lines.size() && i > 0) {
                std::cerr << "xferlab: " << file << ": last line " << i + 1
                          << " is cut short (the process ended while writing it); skipped\n";
                break;
            }
            std::cerr << "xferlab: " << file << ":" << i + 1
                      << ": not an xferlab journal line: " << e.what() << "\n";
            return false;
        }
    }
    results.complete = false;  // a journal alone never says whether the plan finished
    return true;
}

}  // namespace

// Re-renders a results.json (or a journal.jsonl) with this build's analysis: the raw records are
// all there, so a result file alone can be read again after the statistics improve.
int cmd_report(const std::string& file, const std::string& format, bool brief) {
    if (brief && format != "table") {
        std::cerr << brief_needs_table(format) << "\n";
        return exit_bad_input;
    }
    Results results;
    std::ifstream in(file);
    if (!in) {
        std::cerr << "xferlab: cannot open " << file << "\n";
        return exit_bad_input;
    }
    if (std::filesystem::path(file).extension() == ".jsonl") {
        if (!read_journal(file, in, results)) return exit_bad_input;
    } else {
        try {
            nlohmann::json j = nlohmann::json::parse(in);
            results = j.get<Results>();
        } catch (const std::exception& e) {
            std::cerr << "xferlab: " << file << " is not an xferlab results.json: " << e.what()
                      << "\n";
            return exit_bad_input;
        }
    }
    auto reporter = make_reporter(format, brief ? ReportDetail::brief : ReportDetail::full);
    if (!reporter) {
        std::cerr << "xferlab: unknown format '" << format << "'\n";
        return exit_bad_input;
    }
    reporter->write(results, analyze(results), std::cout);
    return exit_ok;
}

}  // namespace xfer
