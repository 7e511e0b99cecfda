#include "run/file_reporters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "results/record_store.hpp"
#include "settings/vocabulary.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

constexpr const char* kCsvReporter = "csv";

std::string csv_file() {
    for (const auto& d : reporter_descriptors())
        if (d.name == kCsvReporter) return d.file;
    return "copies.csv";  // not reached: the vocabulary names it
}

bool asks_for_csv(const Config& config) {
    return std::find(config.reporters.begin(), config.reporters.end(), kCsvReporter) !=
           config.reporters.end();
}

// Runs whose records are in results.sqlite only (PlanRecorder sets records_file).
std::vector<const RunResult*> runs_kept_apart(const Results& results) {
    std::vector<const RunResult*> out;
    for (const auto& run : results.runs)
        if (!run.records_file.empty()) out.push_back(&run);
    return out;
}

}  // namespace

std::vector<std::string> file_reporters(const Results& results, const Config& config,
                                        const fs::path& dir) {
    if (!asks_for_csv(config) || runs_kept_apart(results).empty()) return config.reporters;
    std::vector<std::string> out;
    for (const auto& name : config.reporters)
        if (name != kCsvReporter) out.push_back(name);
    std::error_code ignored;  // absent is the usual case
    fs::remove(dir / csv_file(), ignored);
    return out;
}

std::string copies_csv_note(const Results& results, const Config& config, const fs::path& dir) {
    const auto apart = runs_kept_apart(results);
    if (!asks_for_csv(config) || apart.empty()) return "";
    size_t records = 0;
    for (const RunResult* run : apart) records += run->records.size();
    const std::string store = (dir / kRecordStoreFile).string();
    return fmt::format(
        "{} was not written: {} run(s) of more than output.inline_records ({}) copies keep "
        "their {} records in {} only. To get the CSV: xferlab report {} --format csv > {}, or "
        "sqlite3 -csv -header {} \"SELECT * FROM copies\"",
        csv_file(), apart.size(), config.inline_records, records, kRecordStoreFile, store,
        (dir / csv_file()).string(), store);
}

}  // namespace xfer
