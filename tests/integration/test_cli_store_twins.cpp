// `xferlab report` and `xferlab compare` say the same of a committed results.json and of its
// results.sqlite twin, byte for byte (issue 28: a 5-trial run read from results.sqlite lost its
// trials, and with them its grouping and verdicts).
#include <filesystem>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// Small committed results with what a careless store loses: trials (3 of each run), a failed
// run and its errors (tests/fixtures/plots), payload timed blocks and their device copies,
// staging helpers (two runs measured on H200, tests/fixtures/measured, decompressed).
std::vector<fs::path> twin_fixtures() {
    const fs::path plots = fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures" / "plots";
    return {plots / "trials.results.json", plots / "failed.results.json",
            measured_fixture("h200-frameworks.frameworks"),
            measured_fixture("h200-cure2.staged-mpi")};
}

// `xferlab ARGS`, which must succeed.
CommandResult twin_xferlab(const std::string& args) {
    const CommandResult r = run_command(xferlab() + " " + args);
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 0);
    return r;
}

std::string twin_quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string twin_replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

void check_report_twins(const fs::path& json, const fs::path& store) {
    for (const std::string format : {"", " --format json"}) {
        INFO("report" << format);
        const auto from_json = twin_xferlab("report " + twin_quoted(json) + format);
        const auto from_store = twin_xferlab("report " + twin_quoted(store) + format);
        CHECK(from_store.out == from_json.out);
        CHECK(from_store.err == from_json.err);
    }
}

// compare names its two files in what it prints: the twin's name is replaced by the JSON's,
// the one difference that must remain.
void check_compare_twins(const fs::path& json, const fs::path& store) {
    for (const std::string format : {"", " --format json"}) {
        INFO("compare" << format);
        const std::string j = twin_quoted(json), s = twin_quoted(store);
        const auto itself = twin_xferlab("compare " + j + " " + j + format);
        const auto twin = twin_xferlab("compare " + j + " " + s + format);
        const auto twins = twin_xferlab("compare " + s + " " + s + format);
        CHECK(twin_replace_all(twin.out, store.string(), json.string()) == itself.out);
        CHECK(twin_replace_all(twins.out, store.string(), json.string()) == itself.out);
    }
}

}  // namespace

TEST_CASE(
    "report (table and json) and compare print the same bytes for a results.json and its "
    "results.sqlite twin",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-twins");
    for (const fs::path& json : twin_fixtures()) {
        INFO(json.string());
        const fs::path store = dir / (json.stem().string() + ".sqlite");
        write_store_twin(committed_results(json), store);
        check_report_twins(json, store);
        check_compare_twins(json, store);
    }
    fs::remove_all(dir);
}
