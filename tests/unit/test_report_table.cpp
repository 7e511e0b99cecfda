// report/render: the terminal table's density. What several runs say alike is printed once, naming
// the runs; legends are printed once; nothing a run says is lost (checked on every run measured
// on the GPU hosts, tests/fixtures/measured); --brief keeps the runs, the bandwidth and the
// summary.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/explain/analyze.hpp"
#include "report/render/reporter.hpp"
#include "report/render/shared_items.hpp"
#include "results/serialize.hpp"
#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/sanitizer_build.hpp"
#include "support/text.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;
using xfer::test::contains;
using xfer::test::line_count;
using xfer::test::squeeze;
namespace fs = std::filesystem;

namespace {

// Four runs of two workers. Runs 1 and 2 are Python threads (a thread difference from the
// baseline) and share a note with run 3; run 3 has a note of its own.
Results table_sample() {
    Results res;
    res.tool_version = "0.1.0";
    res.git_describe = "test";
    res.scenario = nlohmann::json{{"scenario", {{"name", "synthetic"}}}};
    for (int i = 0; i < 4; ++i) {
        RunResult r = run(i, i == 1 || i == 2 ? "python" : "host", 2);
        for (int w = 0; w < 2; ++w) {
            back_to_back(r, w, i * 100 * kS + w * 1000, {kS, kS + w * 1000, kS, kS});
            ThreadInfo t;
            t.launcher = r.settings.launcher;
            t.worker = w;
            t.tid = 1000 + w;
            t.python_thread = r.settings.launcher == "python";
            r.threads_info.push_back(t);
        }
        if (i >= 1) r.notes.push_back("the shared note of runs 1 to 3");
        if (i == 3) r.notes.push_back("a note of run 3 alone");
        res.runs.push_back(r);
    }
    return res;
}

std::string table(const Results& res, ReportDetail detail = ReportDetail::full) {
    std::ostringstream out;
    make_reporter("table", detail)->write(res, analyze(res), out);
    return out.str();
}

bool contains_line(const std::string& text, const std::string& line) {
    return contains("\n" + text, "\n" + line + "\n");
}

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// The runs measured on the H200 hosts (support/measured_corpus.txt, xz files), as Results,
// where xz is installed. Under ASan or TSan only the smaller ones (under 50 KB compressed, about
// half a megabyte of JSON; the largest holds 2.6 MB, slow there): the plain build reads them all.
std::vector<std::pair<fs::path, Results>> committed_results() {
    std::vector<std::pair<fs::path, Results>> out;
    if (!xfer::test::xz_installed()) return out;
    for (const fs::path& file : xfer::test::measured_results_files()) {
        if (xfer::test::kSanitizerBuild && fs::file_size(file) >= 50'000) continue;
        out.emplace_back(file, xfer::test::committed_results(file));
    }
    return out;
}

}  // namespace

TEST_CASE("what several runs say alike is printed once, naming the runs",
          "[report][reporter][table]") {
    const std::string text = table(table_sample());
    INFO(text);
    CHECK(count(text, "the shared note of runs 1 to 3") == 1);
    CHECK(contains_line(text, "  runs 1, 2, 3:"));
    CHECK(count(text, "python_thread: no vs yes") == 1);
    CHECK(contains_line(text, "  runs 1, 2:"));
    CHECK(contains_line(text, "    thread attributes, run 0 vs these runs:"));
    // What one run says stays in that run's section.
    const size_t run3 = text.find("\nRun 3: ");
    REQUIRE(run3 != std::string::npos);
    CHECK(text.find("note: a note of run 3 alone") > run3);
    // The shared block comes before the runs' sections.
    CHECK(text.find("Said of several runs") < text.find("\nRun 0: "));
}

TEST_CASE("thread attributes name the baseline run each trial was compared with",
          "[report][reporter][table]") {
    // Two trials of host (runs 0, 2) and of python (runs 1, 3): python's trial 2 is compared
    // with host's trial 2, run 2, not with run 0 (a shared "run 0 vs these runs" said so).
    Results res = table_sample();
    for (int i = 0; i < 4; ++i) {
        RunResult& r = res.runs[size_t(i)];
        r.notes.clear();
        r.position.trial = i / 2 + 1;
        r.position.label = i % 2 ? "python" : "host";
        r.settings.launcher = r.position.label;
        for (ThreadInfo& t : r.threads_info) t.python_thread = i % 2 == 1;
    }
    const std::string text = table(res);
    INFO(text);
    CHECK_FALSE(contains(text, "run 0 vs these runs"));
    const size_t run1 = text.find("\nRun 1: "), run3 = text.find("\nRun 3: ");
    REQUIRE(run1 != std::string::npos);
    REQUIRE(run3 != std::string::npos);
    CHECK(text.find("  thread attributes, run 0 vs this run:\n    python_thread: no vs yes\n",
                    run1) < run3);
    CHECK(text.find("  thread attributes, run 2 vs this run:\n    python_thread: no vs yes\n",
                    run3) != std::string::npos);
}

TEST_CASE("a worker without copies was on no device: the run's line names the others' one",
          "[report][reporter][table]") {
    Results res;
    RunResult r = run(0, "host", 4);
    r.backend_used = "cuda";
    for (int w = 0; w < 3; ++w) back_to_back(r, w, 0, {kS});
    for (Record& c : r.records) c.device = 0;
    res.runs.push_back(r);
    const std::string text = table(res);
    INFO(text);
    CHECK(contains(text, " on device 0; copy time p50 1 s;"));
    // No device column (it said "host" for worker 3); worker 3's row: no tid, 0 copies.
    CHECK(contains(text, "  worker   tid  copies  mean GB/s"));
    CHECK(contains(text, "\n       3     -       0          -"));
}

TEST_CASE("a one-line item two runs share stays under each: printing it once saves nothing",
          "[report][reporter][table]") {
    Results res = table_sample();
    res.runs[0].notes.push_back("a note of runs 0 and 3");
    res.runs[3].notes.push_back("a note of runs 0 and 3");
    const std::string text = table(res);
    INFO(text);
    CHECK(count(text, "  note: a note of runs 0 and 3\n") == 2);
    CHECK_FALSE(contains(text, "runs 0, 3:"));
}

TEST_CASE("a note every run has is printed once under the header", "[report][reporter][table]") {
    Results res = table_sample();
    for (auto& r : res.runs) r.notes = {"backend auto fell back to host"};
    const std::string text = table(res);
    INFO(text);
    CHECK(count(text, "backend auto fell back to host") == 1);
    CHECK(text.find("note (every run): backend auto fell back to host") < text.find("\nRuns\n"));
}

TEST_CASE("the per-run legends are printed once, not under each run", "[report][reporter][table]") {
    const std::string text = table(table_sample());
    INFO(text);
    CHECK(count(squeeze(text), "its own first call..last return") == 1);
    CHECK(count(squeeze(text), "a copy's return to the same worker's next call") == 1);
    // Two workers with as many copies each on one device: said in the run's line, not in a
    // column of the workers' rows.
    CHECK(count(text, "8 copies x 953.67 MiB (+0 warm-up), 4 per worker, in 4 s on the host; ") ==
          4);
    CHECK_FALSE(contains(text, "  worker   tid  device  copies"));
    // The gaps are in the workers' rows.
    CHECK(count(text,
                "  worker   tid  mean GB/s    min   max  worker GB/s  share  gap p50  "
                "gap p90  run len\n") == 4);
}

TEST_CASE("shared_items groups items by the runs that have them", "[report][table]") {
    const Results res = table_sample();
    const SharedItems shared = shared_items(res, analyze(res));
    CHECK(shared.every_run_notes.empty());
    // Of two groups that start with the same run, the one of more runs first.
    REQUIRE(shared.groups.size() == 2);
    CHECK(shared.groups[0].runs == std::vector<int>{1, 2, 3});
    CHECK(shared.groups[0].items.front().text == "the shared note of runs 1 to 3");
    CHECK(shared.groups[1].runs == std::vector<int>{1, 2});
    CHECK(shared.groups[1].items.front().kind == RunItem::Kind::thread_difference);
}

TEST_CASE(
    "the brief table: the runs, the bandwidth, the notes that change how they read, the summary",
    "[report][reporter][table]") {
    Results res = table_sample();
    res.command.argv = {"xferlab", "run", "synthetic.toml", "--set", "threads.count=2"};
    const std::string fallback = "backend auto fell back to host: cuda unavailable (no driver)";
    for (RunResult& r : res.runs) r.notes.push_back(fallback);
    // Other processes kept 6.4 of 16 CPUs busy while run 2 copied: a shared machine.
    res.runs[2].host_activity = HostActivity{"copies", kS, 16, 6.4, 5.1, 1.3, 0};
    const std::string brief = table(res, ReportDetail::brief);
    INFO(brief);
    CHECK(brief.rfind("xferlab 0.1.0 (test): scenario synthetic, 4 runs\n", 0) == 0);
    CHECK(contains(brief, "command: xferlab run synthetic.toml --set threads.count=2\n"));
    CHECK(contains(brief, "\nRuns\n"));
    CHECK(contains(brief, "\nBandwidth\n"));
    CHECK(contains(brief, "\nSummary\n"));
    CHECK(count(brief, "note (every run): " + fallback) == 1);
    // The machine in one line: how many runs, the range of their figures, where the rest is.
    CHECK(contains(squeeze(brief),
                   "Machine: shared during 1 of 4 runs: other processes kept 1.3 of 16 CPUs "
                   "busy, the hypervisor took 0.0% of CPU time (steal)"));
    CHECK(contains(squeeze(brief), "Which runs, and each one's figures: --full"));
    CHECK_FALSE(contains(brief, "why: shared machine"));
    CHECK_FALSE(contains(brief, "\nRun 0: "));
    CHECK_FALSE(contains(brief, "What ran"));
    CHECK_FALSE(contains(brief, "Said of several runs"));
    // The runs, bandwidth and summary of the full table, word for word.
    const std::string full = table(res);
    const size_t runs = full.find("\nRuns\n"), said = full.find("\nSaid of several runs");
    CHECK(contains(brief, full.substr(runs, said - runs)));
    CHECK(contains(brief, full.substr(full.find("\nSummary\n"))));
}

TEST_CASE("the concise table: what ran, each note and finding once, no run's own section",
          "[report][reporter][table]") {
    Results res = table_sample();
    res.runs[3].settings.transfer.host_memory.kind = HostMemoryKind::hugepage;
    const std::string concise = table(res, ReportDetail::concise);
    INFO(concise);
    CHECK(contains(concise, "command: not recorded"));
    // The default report's What ran: the settings every run shares that are not at their
    // defaults (those are --full's).
    CHECK(contains(concise, "\nWhat ran (every run; the settings at their defaults: --full)\n"));
    CHECK(contains(concise, "transfer: bytes = 1 GB"));
    CHECK_FALSE(contains(concise, "direction = h2d"));
    CHECK(contains(table(res), "transfer: direction = h2d, bytes = 1 GB,"));
    // Run 3's memory and each run's launcher differ: they are said per run, not in the block.
    CHECK_FALSE(contains(squeeze(concise), "host_memory = pageable, first_touch"));
    CHECK(contains(squeeze(concise),
                   "host threads.count=2: launcher = host, "
                   "transfer.host_memory = hugepage"));
    CHECK(contains(squeeze(concise),
                   "host threads.count=2: launcher = host, "
                   "transfer.host_memory = pageable"));
    CHECK(count(concise, "the shared note of runs 1 to 3") == 1);
    CHECK(contains(concise, "note (runs 1, 2, 3): the shared note of runs 1 to 3"));
    CHECK(contains(concise, "note (run 3): a note of run 3 alone"));
    CHECK_FALSE(contains(concise, "\nRun 0: "));
    CHECK(contains(concise, "--full"));
    // Every line of the full table's per-run sections is gone; its summary is the same.
    const std::string full = table(res);
    CHECK(contains(full, "\nRun 0: "));
    CHECK(contains(full, "\nWhat ran (every run)\n"));
    CHECK(line_count(concise) < line_count(full));
    CHECK(concise.substr(concise.find("\nSummary\n"), full.size() - full.find("\nSummary\n")) ==
          full.substr(full.find("\nSummary\n")));
}

TEST_CASE("committed results: every item and error of every run is in the table",
          "[report][reporter][table]") {
    const auto files = committed_results();
    REQUIRE(files.size() >= 10);
    for (const auto& [file, res] : files) {
        INFO(file.string());
        const Analysis analysis = analyze(res);
        std::ostringstream out;
        make_reporter("table")->write(res, analysis, out);
        const std::string text = squeeze(out.str());
        const SharedItems shared = shared_items(res, analysis);
        // A thread difference against two baseline runs (trials) is two items of one text.
        std::map<std::string, std::set<int>> baselines;
        for (size_t i = 0; i < res.runs.size(); ++i)
            for (const RunItem& item : run_items(res.runs[i], analysis.runs[i]))
                baselines[item.text].insert(item.baseline);
        for (size_t i = 0; i < res.runs.size(); ++i) {
            for (const RunItem& item : run_items(res.runs[i], analysis.runs[i])) {
                INFO(item.text);
                const size_t n = count(text, squeeze(item.text));
                CHECK(n >= 1);
                // An item that several runs have: once for all of them, or under each of
                // them when that takes fewer lines.
                for (const auto& g : shared.groups) {
                    if (baselines[item.text].size() == 1 &&
                        std::find(g.items.begin(), g.items.end(), item) != g.items.end())
                        CHECK((n == 1 || n == g.runs.size()));
                }
                for (const auto& note : shared.every_run_notes)
                    if (item.text == note) CHECK(n == 1);
            }
            for (const auto& e : res.runs[i].errors) CHECK(contains(text, squeeze(e)));
            for (const auto& w : analysis.runs[i].workers)
                if (w.tid) CHECK(contains(text, " " + std::to_string(w.tid) + " "));
        }
        std::istringstream lines(out.str());
        for (std::string line; std::getline(lines, line);) {
            INFO(line);
            CHECK(line.size() <= 100);
        }
    }
}

TEST_CASE("committed results: the concise table keeps every note and error, brief every note",
          "[report][reporter][table]") {
    for (const auto& [file, res] : committed_results()) {
        INFO(file.string());
        const std::string concise = table(res, ReportDetail::concise);
        const std::string brief = table(res, ReportDetail::brief);
        for (const RunResult& r : res.runs) {
            for (const auto& n : r.notes) {
                CHECK(contains(squeeze(concise), squeeze(n)));
                CHECK(contains(squeeze(brief), squeeze(n)));
            }
            for (const auto& e : r.errors) CHECK(contains(squeeze(concise), squeeze(e)));
        }
        for (const std::string* text : {&concise, &brief}) {
            std::istringstream lines(*text);
            for (std::string line; std::getline(lines, line);) {
                INFO(line);
                CHECK(line.size() <= 100);
            }
        }
    }
}

TEST_CASE("a retired option recorded at its former default stays among the defaults",
          "[report][reporter][table]") {
    // Results of a build before issue #55 recorded stores = "auto" and populate = "off" for
    // every staged run; the concise report hid them as defaults then and still does, and shows
    // one set away from its default as it ran.
    Results res = table_sample();
    for (RunResult& r : res.runs) {
        r.settings.transfer.path = CopyPath::staged;
        r.settings.retired = {{"staging.stores", "auto"}, {"staging.populate", "ahead"}};
    }
    const std::string concise = table(res, ReportDetail::concise);
    INFO(concise);
    CHECK_FALSE(contains(concise, "stores = auto"));
    CHECK(contains(concise, "populate = ahead"));
    // --full shows every recorded value (the header's lines wrap wherever the keys before it end)
    std::string full = table(res);
    INFO(full);
    std::replace(full.begin(), full.end(), '\n', ' ');
    full.erase(std::unique(full.begin(), full.end(),
                           [](char a, char b) { return a == ' ' && b == ' '; }),
               full.end());
    CHECK(contains(full, "stores = auto"));
}
