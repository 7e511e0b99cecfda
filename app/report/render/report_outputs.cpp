#include "report/render/report_outputs.hpp"

#include <sstream>
#include <stdexcept>

#include "report/render/atomic_file.hpp"
#include "report/render/reporter.hpp"
#include "settings/vocabulary.hpp"

namespace xfer {
namespace {

// The file a reporter writes into a results folder ("" for one that writes none).
std::string file_of(const std::string& name) {
    for (const auto& d : reporter_descriptors())
        if (d.name == name) return d.file;
    throw std::runtime_error("unknown reporter '" + name + "'");
}

std::unique_ptr<Reporter> reporter_or_throw(const std::string& name,
                                            ReportDetail detail = ReportDetail::full,
                                            const ReportLimits& limits = {}) {
    auto reporter = make_reporter(name, detail, limits);
    if (!reporter) throw std::runtime_error("unknown reporter '" + name + "'");
    return reporter;
}

}  // namespace

std::filesystem::path write_report_file(const std::string& name, const Results& results,
                                        const Analysis& analysis, const std::filesystem::path& dir,
                                        const ReportLimits& limits) {
    const std::string file = file_of(name);
    if (file.empty()) throw std::runtime_error("reporter '" + name + "' writes no file");
    std::ostringstream content;
    reporter_or_throw(name, ReportDetail::full, limits)->write(results, analysis, content);
    const auto path = dir / file;
    write_file_atomically(path, content.view());
    return path;
}

ReportsWritten write_reports(const Results& results, const Analysis& analysis,
                             const std::vector<std::string>& files,
                             const std::filesystem::path& dir, const std::string& terminal,
                             std::ostream& out, ReportDetail detail, const ReportLimits& limits) {
    ReportsWritten written;
    for (const auto& name : files) {
        try {
            written.files.push_back(write_report_file(name, results, analysis, dir, limits));
        } catch (const std::exception& e) {
            written.failures.push_back(name + ": " + e.what());
        }
    }
    if (!terminal.empty())
        reporter_or_throw(terminal, detail, limits)->write(results, analysis, out);
    return written;
}

}  // namespace xfer
