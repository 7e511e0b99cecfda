#pragma once
// What both results fuzz targets do with a file that was read: everything `report` does with it
// (re-analyse it, print it), so that a value the readers let through
// reaches the code that computes and prints from it. A reader's refusal is an expected outcome;
// anything thrown past it, and any allocation a crafted number drives past libFuzzer's limit
// (-malloc_limit_mb, -rss_limit_mb), is reported as a crash.
#include <exception>
#include <new>
#include <ostream>
#include <streambuf>

#include "report/explain/analyze.hpp"
#include "report/render/reporter.hpp"

namespace xfer::fuzz {

// Writes nothing: the reporters' text is produced, then dropped.
class NullBuffer : public std::streambuf {
  protected:
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// The analysis, and the reporters that print what was read: the table at each level of detail
// and the CSV files. The json and trace reporters are left out: they hand the same values to
// the JSON library's serializer, which took most of each execution.
inline void report_everything(const Results& results) {
    const Analysis analysis = analyze(results);
    NullBuffer sink;
    std::ostream out(&sink);
    for (const ReportDetail detail :
         {ReportDetail::full, ReportDetail::concise, ReportDetail::brief})
        make_reporter("table", detail)->write(results, analysis, out);
    for (const char* name : {"csv", "runs"})
        make_reporter(name, ReportDetail::full)->write(results, analysis, out);
}

// One fuzz input through a reader, then report_everything. A refusal (any exception but
// bad_alloc) is the reader doing its job; bad_alloc goes on to libFuzzer: the reader allocated
// by a number in the file, which is a finding.
template <class Read>
int read_then_report(Read read) {
    Results results;
    try {
        results = read();
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return 0;  // refused, as `report` refuses it
    }
    report_everything(results);
    return 0;
}

}  // namespace xfer::fuzz
