// The measured corpus's list (support/measured_corpus.txt): the one list of the GPU hosts' results
// that the tests read. Each file on it is there, listed once and stored once (no second copy of
// it in tests/fixtures/measured or docs/results), the README's table names the same files, and
// no fixture in tests/fixtures/measured is left off it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/sanitizer_build.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using xfer::test::CorpusEntry;
using xfer::test::measured_corpus_entries;
using xfer::test::measured_results_files;

namespace {

const fs::path kCorpusSource = XFER_SOURCE_DIR;
const fs::path kMeasuredFixtures = kCorpusSource / "tests" / "fixtures" / "measured";

// The files the fixtures README's table names in its first column, paths from the repository
// root.
std::set<std::string> corpus_readme_table_paths() {
    std::ifstream in(kMeasuredFixtures / "README.md");
    std::set<std::string> paths;
    const std::regex row(R"(^\| `([^`]+)` \|)");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, row)) paths.insert(m[1].str());
    }
    return paths;
}

// Every *.results.json(.xz) under docs/results and tests/fixtures/measured.
std::vector<fs::path> corpus_stored_results_files() {
    std::vector<fs::path> files;
    for (const fs::path& dir : {kCorpusSource / "docs" / "results", kMeasuredFixtures})
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file() &&
                xfer::test::is_committed_results_name(e.path().filename().string()))
                files.push_back(e.path());
    return files;
}

}  // namespace

TEST_CASE("every file of the measured corpus's list is there, listed once", "[results][corpus]") {
    const std::vector<CorpusEntry> entries = measured_corpus_entries();
    REQUIRE(entries.size() >= 50);
    std::set<std::string> listed;
    for (const CorpusEntry& e : entries) {
        INFO(e.listed << " (line " << e.line << ")");
        CHECK(listed.insert(e.listed).second);
        CHECK(fs::is_regular_file(e.file));
        CHECK(xfer::test::is_committed_results_name(e.file.filename().string()));
    }
    CHECK_NOTHROW(measured_results_files());
    // No fixture left off the list: a file in tests/fixtures/measured that no test read.
    for (const auto& e : fs::directory_iterator(kMeasuredFixtures)) {
        if (e.path().extension() != ".xz") continue;
        INFO(e.path().string());
        CHECK(listed.count("tests/fixtures/measured/" + e.path().filename().string()) == 1);
    }
}

TEST_CASE("the fixtures README's table names the files of the measured corpus's list",
          "[results][corpus]") {
    std::set<std::string> listed;
    for (const CorpusEntry& e : measured_corpus_entries()) listed.insert(e.listed);
    const std::set<std::string> table = corpus_readme_table_paths();
    CHECK(table.size() == listed.size());
    for (const std::string& path : listed) {
        INFO(path);
        CHECK(table.count(path) == 1);
    }
}

TEST_CASE("a measured results file is stored once: no other results file holds its text",
          "[results][corpus]") {
    if (!xfer::test::xz_installed()) {
        WARN("xz is not installed: the *.results.json.xz files cannot be compared");
        return;
    }
    // Under ASan or TSan the decompression is the same and takes longer: the plain build checks.
    if (xfer::test::kSanitizerBuild) return;
    // By size first, so that only files of one size are read: the texts of the corpus's files.
    std::map<size_t, std::vector<std::pair<std::string, fs::path>>> by_size;
    for (const fs::path& file : measured_results_files()) {
        const std::optional<std::string> text = xfer::test::committed_results_text(file);
        REQUIRE(text);
        by_size[text->size()].emplace_back(*text, file);
    }
    for (const fs::path& file : corpus_stored_results_files()) {
        // A plain file's size is its text's; an .xz file is read when it could match.
        if (!xfer::test::is_xz(file) && by_size.count(fs::file_size(file)) == 0) continue;
        const std::optional<std::string> text = xfer::test::committed_results_text(file);
        REQUIRE(text);
        const auto same = by_size.find(text->size());
        if (same == by_size.end()) continue;
        for (const auto& [corpus_text, corpus_file] : same->second) {
            INFO(file.string() << " and " << corpus_file.string());
            CHECK((file == corpus_file || *text != corpus_text));
        }
    }
}

TEST_CASE("a listed file that is not there is named with the list's line", "[results][corpus]") {
    const fs::path list =
        fs::temp_directory_path() / ("xfer-corpus-" + std::to_string(::getpid()) + ".txt");
    std::ofstream(list) << "# a comment, then a blank line\n\n"
                        << "  tests/fixtures/measured/h200.scaling-1gpu.results.json.xz  # kept\n"
                        << "tests/fixtures/measured/gone.results.json.xz\n";
    const std::vector<CorpusEntry> entries = measured_corpus_entries(list);
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].listed == "tests/fixtures/measured/h200.scaling-1gpu.results.json.xz");
    CHECK(entries[0].line == 3);
    CHECK(entries[1].line == 4);
    CHECK_THROWS_WITH(
        measured_results_files(list),
        list.string() + ":4:1: tests/fixtures/measured/gone.results.json.xz: no such file");
    CHECK_THROWS_WITH(measured_corpus_entries(list.string() + ".absent"),
                      list.string() + ".absent: cannot be read");
    fs::remove(list);
}
