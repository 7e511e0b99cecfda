#include "run/output/results_output.hpp"

#include <iostream>

#include "report/render/format_files.hpp"

namespace xfer {
namespace fs = std::filesystem;

std::unique_ptr<ResultsFolderWriter> results_folder_writer(const fs::path& dir,
                                                           const Config& config,
                                                           PlanAnalysis& analysis,
                                                           ResultsFolderWriter::FolderCheck check) {
    const FolderOfFormats folder{dir, config.inline_records};
    ResultsFolderWriter::Options options{config.inline_records, stored_analysis(analysis),
                                         std::move(check)};
    return std::make_unique<ResultsFolderWriter>(
        dir, format_writers(config.reporters, folder, ReportLimits{config.trace_copies}, analysis),
        std::move(options), std::cerr);
}

void say_results_written(const fs::path& dir, const FolderFinished& finished,
                         const std::string& extra, std::ostream& said) {
    said << "results: " << dir.string() << "/ (";
    for (size_t i = 0; i < finished.reports.size(); ++i)
        said << (i ? ", " : "") << finished.reports[i].filename().string();
    // results.sqlite is written run by run, not at the end: named when it is there.
    if (fs::exists(dir / kRecordStoreFile)) said << ", " << kRecordStoreFile;
    said << extra << ")\n";
    for (const auto& note : finished.notes) said << "note: " << note << "\n";
}

}  // namespace xfer
