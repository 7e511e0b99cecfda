#include "cli/cmd_report.hpp"

#include <iostream>

#include "cli/cli.hpp"
#include "cli/results_file.hpp"
#include "report/reporter.hpp"

namespace xfer {

// Re-renders a results.json (or a journal.jsonl) with this build's analysis: the raw records are
// all there, so a result file alone can be read again after the statistics improve.
int cmd_report(const std::string& file, const std::string& format) {
    auto results = read_results_file(file);
    if (!results) return exit_bad_input;
    auto reporter = make_reporter(format);
    if (!reporter) {
        std::cerr << "xferlab: unknown format '" << format << "'\n";
        return exit_bad_input;
    }
    reporter->write(*results, analyze(*results), std::cout);
    return exit_ok;
}

}  // namespace xfer
