// report/render: each reporter on synthetic results. JSON parses back and round-trips the records,
// CSV has a row per copy, the trace a track per worker, the table fits 100 columns.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

#include "report/analysis/run_stats.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/format_files.hpp"
#include "report/render/reporter.hpp"
#include "results/serialize.hpp"
#include "settings/vocabulary.hpp"
#include "support/catch.hpp"
#include "test_report_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
using namespace xfer::testing;
namespace fs = std::filesystem;

namespace {

constexpr int kWorkers = 3;
constexpr int kReps = 4;
constexpr int kWarmup = 1;

// Two runs of kWorkers x (kWarmup + kReps) copies; the second with device timestamps on two
// streams, a label that needs CSV quoting, a failed third run with no copies.
Results sample() {
    Results res;
    res.tool_version = "0.1.0";
    res.git_describe = "test";
    res.scenario = json{{"scenario", {{"name", "synthetic"}}}};
    res.host = HostFacts{};
    res.host->cpu_model = "test cpu";
    const int64_t t0 = 5 * kS;  // records do not start at 0: CSV/trace times are relative
    for (int i = 0; i < 2; ++i) {
        RunResult r = run(i, i == 0 ? "host" : "python", kWorkers);
        if (i == 1) {
            r.position.label = "python gil=release, \"x\"";
            r.backend_used = "cuda";
        }
        for (int w = 0; w < kWorkers; ++w) {
            for (int k = -kWarmup; k < kReps; ++k) {
                const int64_t s = t0 + i * 100 * kS + (k + kWarmup) * kS + w * 1000;
                Record rec = record(i, w, k, s, s + kS / 2 + w * 1000, kGB, k < 0);
                if (i == 1) {
                    rec.device = 0;
                    rec.device_start_ns = s + 1000;
                    rec.device_end_ns = s + kS / 4;
                    rec.device_timing = DeviceTiming::cupti;
                    rec.stream = uint32_t(7 + w % 2);
                    rec.correlation = uint32_t(100 * w + k + 1);
                }
                r.records.push_back(rec);
            }
            ThreadInfo t;
            t.launcher = r.settings.launcher;
            t.worker = w;
            t.tid = 1000 + w;
            t.stack_size = i == 0 ? 8u << 20 : 256u << 10;
            t.policy = "other";
            r.threads_info.push_back(t);
        }
        if (i == 1) r.notes = {"backend auto fell back to host"};
        res.runs.push_back(r);
    }
    RunResult failed = run(2, "host+gil", 2);
    failed.status = RunStatus::failed;
    failed.errors = {"worker 1 repetition 0: verification mismatch at offset 4096\nsecond line"};
    res.runs.push_back(failed);
    return res;
}

// A fresh directory under the system temp dir.
fs::path temp_dir(const std::string& tag) {
    const fs::path d =
        fs::temp_directory_path() / ("xfer-report-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The plan's analysis of `res`, as a plan being run keeps it.
PlanAnalysis analysis_of(const Results& res) {
    PlanAnalysis analysis;
    for (const RunResult& run : res.runs) analysis.add_run(analyze_run(run));
    return analysis;
}

// Format `name`'s file written into `dir` as a results folder gets it at a plan's end.
fs::path write_format_file(const std::string& name, const Results& res, const fs::path& dir) {
    PlanAnalysis analysis = analysis_of(res);
    auto writers = format_writers({name}, FolderOfFormats{dir}, ReportLimits{}, analysis);
    REQUIRE(writers.size() == 1);
    const bool written = writers[0]->finish(res);  // what it throws reaches the caller
    REQUIRE(written);
    return writers[0]->path();
}

// The table prints to `out`; every other reporter writes its file into `dir` (returned).
fs::path write_with(const std::string& name, const Results& res, const fs::path& dir,
                    std::ostream& out) {
    auto rep = make_reporter(name);
    REQUIRE(rep);
    CHECK(rep->name() == name);
    if (name == "table") {
        rep->write(res, analyze(res), out);
        return {};
    }
    return write_format_file(name, res, dir);
}

// RFC 4180 records (fields may hold quoted commas, quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            row.push_back(std::move(field));
            field.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

}  // namespace

TEST_CASE("make_reporter knows the five reporters", "[report][reporter]") {
    for (const auto& n : format_names()) {
        auto r = make_reporter(n);
        REQUIRE(r);
        CHECK(r->name() == n);
    }
    CHECK(format_names().size() == 5);
    CHECK(make_reporter("xml") == nullptr);
}

TEST_CASE("results.json parses back, round-trips records and holds the analysis",
          "[report][reporter][json]") {
    const Results res = sample();
    const fs::path dir = temp_dir("json");
    std::ostringstream out;
    const fs::path path = write_with("json", res, dir, out);
    CHECK(path == dir / "results.json");
    // Written atomically: only the target is left, no temporary.
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

    const json j = json::parse(read(path));
    CHECK(j.at("schema_version") == 1);
    CHECK(j.at("tool_version") == "0.1.0");
    CHECK(j.at("scenario").at("scenario").at("name") == "synthetic");
    REQUIRE(j.at("runs").size() == 3);
    CHECK(j.at("runs")[0].at("records").size() == size_t(kWorkers * (kReps + kWarmup)));
    CHECK(j.at("runs")[1].at("thread_infos").size() == size_t(kWorkers));
    CHECK(j.at("runs")[2].at("status") == "failed");
    // The analysis rides along each run.
    const json& a0 = j.at("runs")[0].at("analysis");
    CHECK(a0.at("copies") == kWorkers * kReps);
    CHECK(a0.at("is_baseline") == true);
    CHECK(j.at("runs")[1].at("analysis").at("vs_baseline").at("baseline_run") == 0);
    CHECK(j.at("runs")[1].at("analysis").at("device_concurrency").is_number());
    CHECK(j.at("baseline_run") == 0);
    CHECK(j.at("summary").is_array());

    // Loading it back as Results gives exactly what was written.
    const Results back = j.get<Results>();
    CHECK(json(back) == json(res));
    REQUIRE(back.runs[1].records.size() == res.runs[1].records.size());
    CHECK(back.runs[1].records[3].device_start_ns == res.runs[1].records[3].device_start_ns);
    fs::remove_all(dir);
}

TEST_CASE("copies.csv: a header and one row per copy, warm-up included",
          "[report][reporter][csv]") {
    const Results res = sample();
    const fs::path dir = temp_dir("csv");
    std::ostringstream out;
    const fs::path path = write_with("csv", res, dir, out);
    CHECK(path == dir / "copies.csv");
    const auto rows = parse_csv(read(path));
    REQUIRE(!rows.empty());
    const auto& header = rows[0];
    const std::vector<std::string> expected{"run",
                                            "label",
                                            "launcher",
                                            "worker",
                                            "repetition",
                                            "warmup",
                                            "start_ns",
                                            "duration_ns",
                                            "size_bytes",
                                            "throughput_GBps",
                                            "src_kind",
                                            "dst_kind",
                                            "device",
                                            "context",
                                            "stream",
                                            "device_start_ns",
                                            "device_duration_ns",
                                            "pre_device_ns",
                                            "thread",
                                            "pid",
                                            "cpu",
                                            "device_timing",
                                            "correlation_id",
                                            "gap_ns",
                                            "between_ns"};
    CHECK(header == expected);
    auto col = [&](const std::string& name) {
        return size_t(std::find(header.begin(), header.end(), name) - header.begin());
    };
    // workers x (repetitions + warm-up) per run with copies; the failed run adds none.
    REQUIRE(rows.size() == 1 + 2 * kWorkers * (kReps + kWarmup));
    std::map<std::string, int> per_run, warmups;
    for (size_t i = 1; i < rows.size(); ++i) {
        REQUIRE(rows[i].size() == header.size());
        ++per_run[rows[i][col("run")]];
        if (rows[i][col("warmup")] == "1") ++warmups[rows[i][col("run")]];
    }
    CHECK(per_run["0"] == kWorkers * (kReps + kWarmup));
    CHECK(per_run["1"] == kWorkers * (kReps + kWarmup));
    CHECK(warmups["1"] == kWorkers * kWarmup);

    const auto& first = rows[1];  // run 0, worker 0, warm-up: the first record of the results
    CHECK(first[col("start_ns")] == "0");
    CHECK(first[col("duration_ns")] == std::to_string(kS / 2));
    CHECK(first[col("size_bytes")] == std::to_string(kGB));
    CHECK(first[col("throughput_GBps")] == "2");  // 1 GB in 0.5 s
    CHECK(first[col("src_kind")] == "pageable");
    CHECK(first[col("dst_kind")] == "host");  // host backend
    CHECK(first[col("device_start_ns")].empty());
    CHECK(first[col("thread")] == "1000");
    CHECK(first[col("gap_ns")].empty());  // the worker's first copy has no gap before it
    CHECK(first[col("between_ns")] == "0");

    const auto& dev = rows[1 + kWorkers * (kReps + kWarmup)];  // run 1, device-timed
    CHECK(dev[col("label")] == "python gil=release, \"x\"");   // quoted and unquoted intact
    CHECK(dev[col("dst_kind")] == "device");
    CHECK(dev[col("device_duration_ns")] == std::to_string(kS / 4 - 1000));
    CHECK(dev[col("pre_device_ns")] == "1000");
    CHECK(dev[col("device_timing")] == "cupti");
    fs::remove_all(dir);
}

TEST_CASE("trace.json: one named track per worker, one per device stream",
          "[report][reporter][trace]") {
    const Results res = sample();
    const fs::path dir = temp_dir("trace");
    std::ostringstream out;
    const fs::path path = write_with("trace", res, dir, out);
    CHECK(path == dir / "trace.json");
    const json j = json::parse(read(path));
    const json& ev = j.at("traceEvents");

    std::map<int, std::set<int>> worker_tracks, device_tracks;
    std::map<int, std::string> process_names;
    std::map<std::pair<int, int>, int> copies_per_track;
    size_t device_events = 0;
    for (const auto& e : ev) {
        // pid = run index + 1 (Perfetto reserves pid 0).
        const int pid = e.at("pid").get<int>() - 1, tid = e.at("tid");
        if (e.at("ph") == "M" && e.at("name") == "thread_name") {
            const std::string name = e.at("args").at("name");
            (name.find("worker") != std::string::npos ? worker_tracks : device_tracks)[pid].insert(
                tid);
        } else if (e.at("ph") == "M" && e.at("name") == "process_name") {
            process_names[pid] = e.at("args").at("name");
        } else if (e.at("ph") == "X") {
            CHECK(e.at("dur").get<double>() > 0);
            CHECK(e.at("ts").get<double>() >= 0);
            if (e.at("cat") == "device") {
                ++device_events;
            } else {
                ++copies_per_track[{pid, tid}];
                CHECK(e.at("args").at("bytes") == kGB);
            }
        }
    }
    CHECK(worker_tracks[0].size() == size_t(kWorkers));
    CHECK(worker_tracks[1].size() == size_t(kWorkers));
    CHECK(worker_tracks[2].empty());      // failed run: no workers recorded
    CHECK(device_tracks[0].empty());      // host backend: no device intervals
    CHECK(device_tracks[1].size() == 2);  // streams 7 and 8 on device 0
    CHECK(device_events == size_t(kWorkers * (kReps + kWarmup)));
    CHECK(process_names[1] == "run 1: python gil=release, \"x\"");
    for (const auto& [track, n] : copies_per_track) CHECK(n == kReps + kWarmup);
    CHECK(copies_per_track.size() == size_t(2 * kWorkers));
    // The example name from the design: "run 1 python worker 0".
    bool named = false;
    for (const auto& e : ev) {
        if (e.at("ph") == "M" && e.at("args").value("name", "") == "run 1 python worker 0") {
            named = true;
        }
    }
    CHECK(named);
    fs::remove_all(dir);
}

TEST_CASE("trace.json: every track is named after its run's index, as its process is",
          "[report][reporter][trace]") {
    const Results res = sample();
    std::ostringstream out;
    make_reporter("trace")->write(res, analyze(res), out);
    const json j = json::parse(out.str());
    std::map<int, std::set<std::string>> tracks;  // by pid
    std::map<int, std::string> processes;
    for (const auto& e : j.at("traceEvents")) {
        if (e.at("ph") != "M") continue;
        if (e.at("name") == "thread_name") tracks[e.at("pid")].insert(e.at("args").at("name"));
        if (e.at("name") == "process_name") processes[e.at("pid")] = e.at("args").at("name");
    }
    // pid = run index + 1; the names say the run index, the worker tracks and the device
    // tracks alike.
    CHECK(processes[1] == "run 0: host threads.count=3");
    CHECK(tracks[1] == std::set<std::string>{"run 0 host worker 0", "run 0 host worker 1",
                                             "run 0 host worker 2"});
    CHECK(processes[2] == "run 1: python gil=release, \"x\"");
    CHECK(tracks[2] == std::set<std::string>{"run 1 python worker 0", "run 1 python worker 1",
                                             "run 1 python worker 2", "run 1 device 0 stream 7",
                                             "run 1 device 0 stream 8"});
    CHECK(tracks.count(3) == 0);  // the failed run recorded no worker
}

TEST_CASE("the table names every run and fits 100 columns", "[report][reporter][table]") {
    const Results res = sample();
    std::ostringstream out;
    const fs::path written = write_with("table", res, fs::path("/nonexistent"), out);
    CHECK(written.empty());
    const std::string text = out.str();
    for (const auto& r : res.runs) {
        INFO(r.position.label);
        CHECK(text.find(r.position.label) != std::string::npos);
    }
    std::istringstream lines(text);
    std::string line;
    size_t count = 0;
    while (std::getline(lines, line)) {
        INFO(line);
        CHECK(line.size() <= 100);
        ++count;
    }
    CHECK(count > 10);
    CHECK(text.find("GB/s") != std::string::npos);
    CHECK(text.find("baseline") != std::string::npos);
    CHECK(text.find("note: backend auto fell back to host") != std::string::npos);
    CHECK(text.find("error: worker 1 repetition 0: verification mismatch") != std::string::npos);
    CHECK(text.find("stack_size") != std::string::npos);  // thread differences vs the baseline
}

TEST_CASE("a long label wraps instead of widening the table", "[report][reporter][table]") {
    Results res = sample();
    res.runs[0].position.label =
        std::string(150, 'x') + " python gil=release threads.count=4 " +
        "transfer.host_memory=numa:0 transfer.bytes=1MiB threads.affinity=compact";
    std::ostringstream out;
    write_with("table", res, "", out);
    std::istringstream lines(out.str());
    std::string line;
    while (std::getline(lines, line)) {
        INFO(line);
        CHECK(line.size() <= 100);
    }
}

TEST_CASE("file reporters replace an old file and fail loudly where they cannot write",
          "[report][reporter]") {
    const Results res = sample();
    const fs::path dir = temp_dir("atomic");
    {
        std::ofstream old(dir / "copies.csv");
        old << "stale content that is longer than nothing\n";
    }
    std::ostringstream out;
    write_with("csv", res, dir, out);
    CHECK(read(dir / "copies.csv").rfind("run,label,", 0) == 0);
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

    // A regular file where the output directory should be.
    const fs::path blocker = dir / "not-a-dir";
    std::ofstream(blocker) << "x";
    CHECK_THROWS_AS(write_format_file("json", res, blocker / "sub"), std::system_error);
    fs::remove_all(dir);
}

TEST_CASE("format_writers: one file per format that has one, each as the terminal prints it",
          "[report][reporter]") {
    const Results res = sample();
    const fs::path dir = temp_dir("fanout");
    PlanAnalysis analysis = analysis_of(res);
    auto writers =
        format_writers({"json", "table", "csv"}, FolderOfFormats{dir}, ReportLimits{}, analysis);
    REQUIRE(writers.size() == 2);  // the table writes no file
    CHECK(writers[0]->path() == dir / "results.json");
    CHECK(writers[1]->path() == dir / "copies.csv");
    for (auto& w : writers) CHECK(w->finish(res));
    // The terminal gets the same text as the file.
    std::ostringstream out;
    make_reporter("csv")->write(res, analyze(res), out);
    CHECK(out.str() == read(dir / "copies.csv"));
    CHECK_THROWS_WITH(format_writers({"nope"}, FolderOfFormats{dir}, ReportLimits{}, analysis),
                      "unknown format 'nope'");
    fs::remove_all(dir);
}

TEST_CASE("runs.csv: a row per run with its trials, then a row per trial",
          "[report][reporter][csv]") {
    const Results res = sample();
    const fs::path dir = temp_dir("runs");
    std::ostringstream out;
    const fs::path path = write_with("runs", res, dir, out);
    CHECK(path == dir / "runs.csv");
    const auto rows = parse_csv(read(path));
    REQUIRE(rows.size() == 7);  // header, then (run, trial) for each of the three runs
    CHECK(rows[0][0] == "kind");
    CHECK(rows[0].size() == 22);
    CHECK(rows[1][0] == "run");
    CHECK(rows[1][1] == "host threads.count=3");
    CHECK(rows[1][3] == "1");  // trials
    CHECK(rows[1][21] == "baseline");
    CHECK(rows[2][0] == "trial");
    CHECK(rows[2][2] == "1");                          // trial
    CHECK(rows[2][4] == "0");                          // run index
    CHECK(rows[3][1] == "python gil=release, \"x\"");  // quoted, read back whole
    CHECK(rows[3][15] == "host threads.count=3");      // its baseline
    CHECK(rows[3][20] == "not tested");                // one trial a side
    CHECK(rows[5][3] == "0");                          // the failed run: no trial measured
    CHECK(rows[6][7] == "failed");
    for (const auto& row : rows) CHECK(row.size() == rows[0].size());
}

TEST_CASE("runs.csv names a baseline by its run number where a file holds part of a plan",
          "[report][reporter][csv]") {
    // Runs 3, 4 and 5 of a plan of six (a results file may hold some runs only): the baseline
    // is run 3 at results.runs[0]. The reporter read results.runs[3] for it, past the end
    // (the results_json fuzzer's heap-use-after-free).
    Results res = sample();
    res.planned_runs = 6;
    for (RunResult& r : res.runs) {
        r.position.index += 3;
        for (Record& rec : r.records) rec.run = r.position.index;
    }
    const fs::path dir = temp_dir("runs-part");
    std::ostringstream out;
    const auto rows = parse_csv(read(write_with("runs", res, dir, out)));
    REQUIRE(rows.size() == 7);
    CHECK(rows[2][4] == "3");  // the baseline's trial: its run number
    CHECK(rows[4][0] == "trial");
    CHECK(rows[4][4] == "4");
    CHECK(rows[4][15] == "3");  // held against run 3
    fs::remove_all(dir);
}
