#include "results/runs_on_disk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "results/folder_files.hpp"
#include "results/record_store.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

// One file's count: a number of runs, or why there is none.
struct FileCount {
    std::optional<size_t> runs;
    std::string why;  // when runs is empty
};

std::optional<std::string> file_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The journal holds whole lines only (a torn one is cut back): one run per newline.
FileCount journal_runs(const fs::path& path) {
    if (!fs::exists(path)) return {0, ""};
    return {journal_run_count(path), ""};
}

FileCount store_runs(const fs::path& path) {
    if (!fs::exists(path)) return {0, ""};
    try {
        return {size_t(stored_run_count(path.string())), ""};
    } catch (const std::exception& e) {
        return {std::nullopt, e.what()};
    }
}

FileCount results_json_runs(const fs::path& path) {
    const auto text = file_text(path);
    if (!text) return {0, ""};
    const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("runs") || !j["runs"].is_array())
        return {std::nullopt, "not a whole results.json"};
    return {j["runs"].size(), ""};
}

std::string said(const FileCount& c, const std::string& file) {
    if (!c.runs) return file + " unreadable (" + c.why + ")";
    return std::to_string(*c.runs) + " in " + file;
}

}  // namespace

size_t journal_run_count(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    size_t lines = 0;
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
        lines += size_t(std::count(buffer, buffer + in.gcount(), '\n'));
    return lines;
}

std::string runs_on_disk(const fs::path& dir, size_t completed) {
    const FileCount journal = journal_runs(dir / kJournalFile);
    const FileCount store = store_runs(dir / kRecordStoreFile);
    const FileCount json = results_json_runs(dir / kResultsJsonFile);
    size_t most = 0;
    for (const FileCount* c : {&journal, &store, &json}) most = std::max(most, c->runs.value_or(0));
    return fmt::format("{} of the {} completed run(s): {}, {}, {}", most, completed,
                       said(journal, (dir / kJournalFile).string()), said(store, kRecordStoreFile),
                       said(json, kResultsJsonFile));
}

}  // namespace xfer
