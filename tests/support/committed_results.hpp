#pragma once
// The results.json files the tests read: the hand-built fixtures (tests/fixtures/**) and the runs
// measured on the GPU hosts that support/measured_corpus.txt lists (each stored once: in
// tests/fixtures/measured, or under docs/results where a page cites it), read as text (the
// *.results.json.xz ones through `xz -dc`), and the results.sqlite twin of a Results, written as
// `run` writes one: for the tests that the two files hold the same results.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/record_store.hpp"
#include "results/serialize.hpp"

namespace xfer::test {

inline bool is_committed_results_name(const std::string& name) {
    for (const std::string end : {".results.json", ".results.json.xz"})
        if (name.size() > end.size() &&
            name.compare(name.size() - end.size(), end.size(), end) == 0)
            return true;
    return false;
}

// The list of the measured corpus: one path a line from the repository root, '#' to the end of
// a line a comment (tests/CMakeLists.txt reads it the same way for python/audit_explanations).
inline std::filesystem::path measured_corpus_list() {
    return std::filesystem::path(XFER_SOURCE_DIR) / "tests" / "support" / "measured_corpus.txt";
}

struct CorpusEntry {
    std::filesystem::path file;  // absolute
    std::string listed;          // as the list gives it
    size_t line = 0;             // of the list, from 1
};

// The list's entries in its order; throws when the list cannot be read.
inline std::vector<CorpusEntry> measured_corpus_entries(
    const std::filesystem::path& list = measured_corpus_list()) {
    std::ifstream in(list);
    if (!in) throw std::runtime_error(list.string() + ": cannot be read");
    std::vector<CorpusEntry> entries;
    size_t number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        line = line.substr(0, line.find('#'));
        const size_t begin = line.find_first_not_of(" \t\r");
        if (begin == std::string::npos) continue;
        const std::string listed = line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin);
        entries.push_back({std::filesystem::path(XFER_SOURCE_DIR) / listed, listed, number});
    }
    return entries;
}

// The measured corpus's files, sorted; throws "LIST:LINE:1: PATH: no such file" for an entry
// that is not there, so that a test reading the corpus cannot pass on fewer files.
inline std::vector<std::filesystem::path> measured_results_files(
    const std::filesystem::path& list = measured_corpus_list()) {
    std::vector<std::filesystem::path> files;
    for (const CorpusEntry& e : measured_corpus_entries(list)) {
        if (!std::filesystem::is_regular_file(e.file))
            throw std::runtime_error(list.string() + ":" + std::to_string(e.line) +
                                     ":1: " + e.listed + ": no such file");
        files.push_back(e.file);
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The measured corpus and every hand-built *.results.json under tests/fixtures, sorted.
inline std::vector<std::filesystem::path> committed_results_files() {
    namespace fs = std::filesystem;
    std::vector<fs::path> files = measured_results_files();
    for (const auto& e :
         fs::recursive_directory_iterator(fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures"))
        if (e.is_regular_file() && e.path().extension() == ".json" &&
            is_committed_results_name(e.path().filename().string()))
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

inline bool is_xz(const std::filesystem::path& file) { return file.extension() == ".xz"; }

inline bool xz_installed() { return std::system("command -v xz >/dev/null 2>&1") == 0; }

// The file's text, through `xz -dc` for an .xz file; nullopt when it cannot be read whole.
inline std::optional<std::string> committed_results_text(const std::filesystem::path& file) {
    if (!is_xz(file)) {
        std::ifstream in(file, std::ios::binary);
        if (!in) return std::nullopt;
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    FILE* pipe = ::popen(("xz -dc '" + file.string() + "'").c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string text;
    char buffer[1 << 16];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    return ::pclose(pipe) == 0 ? std::optional<std::string>(std::move(text)) : std::nullopt;
}

// tests/fixtures/measured/NAME.results.json.xz decompressed, for a command that reads a
// results.json (xferlab itself reads no .xz): a file NAME.results.json in a folder of this
// process under the temporary directory, written at the first call and reused after; the
// folder goes when the process ends.
inline std::filesystem::path measured_fixture(const std::string& name) {
    namespace fs = std::filesystem;
    struct Folder {
        fs::path path;
        ~Folder() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    };
    static const Folder folder{fs::temp_directory_path() /
                               ("xfer-measured-" + std::to_string(::getpid()))};
    const fs::path xz =
        fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures" / "measured" / (name + ".results.json.xz");
    const fs::path& dir = folder.path;
    const fs::path out = dir / (name + ".results.json");
    if (fs::exists(out)) return out;
    const std::optional<std::string> text = committed_results_text(xz);
    if (!text) throw std::runtime_error(xz.string() + " cannot be read (is xz installed?)");
    fs::create_directories(dir);
    const fs::path tmp = dir / (name + ".results.json.tmp");
    std::ofstream(tmp, std::ios::binary) << *text;
    fs::rename(tmp, out);
    return out;
}

inline Results committed_results(const std::filesystem::path& file) {
    const std::optional<std::string> text = committed_results_text(file);
    if (!text) throw std::runtime_error(file.string() + " cannot be read");
    return nlohmann::json::parse(*text).get<Results>();
}

// `results` in a new results.sqlite at `path`, written as PlanRecorder writes one: the plan,
// each run as it ends, then the end of the plan.
inline void write_store_twin(const Results& results, const std::filesystem::path& path) {
    std::filesystem::remove(path);
    RecordStore store(path.string());
    store.write_plan(results);
    for (const RunResult& run : results.runs) store.add_run(run);
    store.end_plan();
}

}  // namespace xfer::test
