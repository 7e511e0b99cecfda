#pragma once
// Reporters behind one interface, all fed by the same Results and Analysis.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

class Reporter {
  public:
    virtual ~Reporter() = default;
    virtual std::string name() const = 0;  // a name in results/vocabulary.cpp
    // The whole report in this reporter's format. Whether it goes to the terminal or into a
    // results folder is report/report_outputs.hpp's business, not the reporter's.
    virtual void write(const Results& results, const Analysis& analysis, std::ostream& out) = 0;
};

// How much the terminal table says: everything, or (run/report --brief) the runs table, the
// bandwidth table and the summary. The other reporters always write everything.
enum class ReportDetail { full, brief };

// What the file reporters bound for plans of millions of copies (output.trace_copies).
struct ReportLimits {
    // trace.json shows at most this many copies of a run (0: all): past it an even sample,
    // which its metadata names; Perfetto slows to a crawl on millions of events.
    size_t trace_copies_per_run = 20000;
};

// The reporter of a name in results/vocabulary.hpp's reporter table; nullptr when unknown.
std::unique_ptr<Reporter> make_reporter(const std::string& name,
                                        ReportDetail detail = ReportDetail::full,
                                        const ReportLimits& limits = {});

}  // namespace xfer
