#include "report/render/format_files.hpp"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "report/analysis/analysis_json.hpp"
#include "results/file_at_finish.hpp"

namespace xfer {
namespace {

std::unique_ptr<ResultsWriter> format_writer(const Format& format, const FolderOfFormats& folder,
                                             const ReportLimits& limits, PlanAnalysis& analysis) {
    auto content = [&format, folder, limits, &analysis](
                       const Results& results, std::string& note) -> std::optional<std::string> {
        if (format.left_out) {
            note = format.left_out(results, folder);
            if (!note.empty()) return std::nullopt;
        }
        std::ostringstream text;
        format.make(FormatOptions{ReportDetail::full, limits})
            ->write(results, analysis.of(results), text);
        return std::move(text).str();
    };
    return std::make_unique<FileAtFinish>(format.name, folder.dir / format.file,
                                          std::move(content));
}

}  // namespace

std::vector<std::unique_ptr<ResultsWriter>> format_writers(const std::vector<std::string>& names,
                                                           const FolderOfFormats& folder,
                                                           const ReportLimits& limits,
                                                           PlanAnalysis& analysis) {
    std::vector<std::unique_ptr<ResultsWriter>> out;
    for (const std::string& name : names) {
        const Format* format = find_format(name);
        if (!format) throw std::invalid_argument("unknown format '" + name + "'");
        if (!format->file.empty()) out.push_back(format_writer(*format, folder, limits, analysis));
    }
    return out;
}

RecordStoreWriter::AnalysisOf stored_analysis(PlanAnalysis& analysis) {
    return [&analysis](const Results& results) {
        const Analysis& a = analysis.of(results);
        return StoredAnalysis{std::vector<nlohmann::json>(a.runs.begin(), a.runs.end()),
                              texts(a.summary)};
    };
}

std::string copies_csv_left_out(const Results& results, const FolderOfFormats& folder) {
    size_t runs = 0, records = 0;
    for (const RunResult& run : results.runs) {
        if (run.records_file.empty()) continue;
        ++runs;
        records += run.records.size();
    }
    if (runs == 0) return "";
    const std::string store = (folder.dir / kRecordStoreFile).string();
    const std::string csv = find_format("csv")->file;
    return fmt::format(
        "{} was not written: {} run(s) of more than output.inline_records ({}) copies keep "
        "their {} records in {} only. To get the CSV: xferlab report {} --format csv > {}, or "
        "sqlite3 -csv -header {} \"SELECT * FROM copies\"",
        csv, runs, folder.inline_records, records, kRecordStoreFile, store,
        (folder.dir / csv).string(), store);
}

}  // namespace xfer
