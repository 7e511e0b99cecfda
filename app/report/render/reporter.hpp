#pragma once
// Reporters behind one interface, all fed by the same Results and Analysis.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

class Reporter {
  public:
    virtual ~Reporter() = default;
    virtual std::string name() const = 0;  // its format's name (report/render/formats.hpp)
    // The whole report in this reporter's format. Whether it goes to the terminal or into a
    // results folder is the caller's (results/results_writer.hpp for a results folder), not the
    // reporter's.
    virtual void write(const Results& results, const Analysis& analysis, std::ostream& out) = 0;
};

// How much the terminal table says (the other reporters always write everything):
//   full     every run's section: worker rows, gaps, device and helper figures, thread
//            attributes (run/report --full);
//   concise  what ran, the runs (one row per run of the plan when it has trials), their
//            bandwidth, each finding once with the runs it holds for, the notes, the errors and
//            the summary (the default);
//   brief    the runs, the bandwidth and the summary, with the command and every note that
//            changes how the numbers are read (a backend fallback, a shared machine) (--brief).
enum class ReportDetail { full, concise, brief };

// What the file reporters bound for plans of millions of copies (output.trace_copies).
struct ReportLimits {
    // trace.json shows at most this many copies of a run (0: all): past it an even sample,
    // which its metadata names; Perfetto slows to a crawl on millions of events.
    size_t trace_copies_per_run = 20000;
};

// The reporter of a format (report/render/formats.hpp); nullptr when unknown.
std::unique_ptr<Reporter> make_reporter(const std::string& name,
                                        ReportDetail detail = ReportDetail::full,
                                        const ReportLimits& limits = {});

}  // namespace xfer
