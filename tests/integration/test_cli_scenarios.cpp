// Drives the built CLI on every scenario file: `check` passes and prints distinct labels, `run`
// on the host backend with tiny copies succeeds and writes results that hold every copy.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "backend/host_backend.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/siblings.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

std::vector<fs::path> scenario_files() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(XFER_SOURCE_DIR) / "scenarios"))
        if (e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The benchmarks' scenario files: tests/bench and its folders (staging/: the staging engine's
// measurements).
std::vector<fs::path> bench_scenario_files() {
    std::vector<fs::path> files;
    for (const auto& e :
         fs::recursive_directory_iterator(fs::path(XFER_SOURCE_DIR) / "tests" / "bench"))
        if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

size_t count_lines(const fs::path& p) {
    std::ifstream in(p);
    return size_t(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

}  // namespace

// check judges the plan against this machine as run does: with 64 MiB copies the seeds' 16 GiB
// need no big machine (and staging-sweep's 32 MiB chunks still fit in a copy on the GPU host).
// Runs that need CUDA where "auto" falls back to host (pinned memory in isolate-context) are
// warnings: `run` skips them.
void check_passes_here(const fs::path& f) {
    INFO(f.string());
    auto r = run_command(xferlab() + " check '" + f.string() + "' --set transfer.bytes=64MiB");
    INFO(r.err);
    CHECK(r.out.find("runs") != std::string::npos);
    if (xfer::load_scenario(f).backend == "cuda" && !cuda_available()) {
        // backend = "cuda" where it is unavailable: refused, as `run` refuses it, once (after
        // the file passed every check of its keys, which come first).
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, f.string() + ": backend cuda is unavailable here ("));
        CHECK(r.err.find("unavailable") == r.err.rfind("unavailable"));  // not once a run
        return;
    }
    CHECK(r.exit_code == 0);
}

TEST_CASE("every scenario file passes check", "[integration]") {
    auto files = scenario_files();
    REQUIRE(files.size() >= 5);
    for (const auto& f : files) check_passes_here(f);
}

TEST_CASE("every benchmark's scenario file in tests/bench passes check", "[integration]") {
    auto files = bench_scenario_files();
    // records_1m and plot_100k, and the eight of staging/ (tests/bench/staging/README.md).
    CHECK(files.size() >= 10);
    for (const auto& f : files) check_passes_here(f);
}

namespace {

// The labels in the plan table `check` prints: the label column spans from after "  run  " to
// the blank before the right-aligned "threads" heading.
std::vector<std::string> printed_labels(const std::string& out) {
    std::vector<std::string> labels;
    std::istringstream in(out);
    size_t width = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("  run  label", 0) == 0) {
            width = line.find("threads") - 8;
            continue;
        }
        if (width == 0 || line.size() < 7 + width || line.compare(5, 2, "  ") != 0 ||
            line.find_first_not_of(" 0123456789") < 5)
            continue;
        std::string label = line.substr(7, width);
        label.erase(label.find_last_not_of(' ') + 1);
        labels.push_back(label);
    }
    return labels;
}

}  // namespace

TEST_CASE("check prints every run's label whole: no two read the same", "[integration]") {
    for (const auto& f : scenario_files()) {
        INFO(f.string());
        auto r = run_command(xferlab() + " check '" + f.string() + "'");
        INFO(r.out);
        const auto labels = printed_labels(r.out);
        const auto plan = xfer::expand_plan(xfer::load_scenario(f));
        REQUIRE(labels.size() == plan.size());
        std::set<std::string> distinct(labels.begin(), labels.end());
        CHECK(distinct.size() == labels.size());
        // A run's trials share its label: check adds the trial.
        const bool trials = std::any_of(
            plan.begin(), plan.end(), [](const xfer::Run& run) { return run.position.trial > 1; });
        for (size_t i = 0; i < plan.size(); ++i) {
            CHECK(labels[i] == (trials ? plan[i].position.label + " (trial " +
                                             std::to_string(plan[i].position.trial) + ")"
                                       : plan[i].position.label));
        }
    }
}

TEST_CASE("every scenario runs on the host backend with 1 MiB copies", "[integration]") {
    for (const auto& f : scenario_files()) {
        INFO(f.string());
        auto out = fresh_temp_dir("run");
        // Runs with a setting only the cuda backend runs (a transfer.path, page-locked memory,
        // per-worker contexts, ...) are refused on the host backend that was asked for, before
        // anything runs, each with the host backend's reason. ("auto" would skip them where
        // CUDA is unavailable: test_cli_fallback.)
        std::set<std::string> cuda_only;
        for (const auto& run : xfer::expand_plan(xfer::load_scenario(f)))
            if (const auto why = xfer::host_needs_cuda(run.settings.transfer); !why.empty())
                cuda_only.insert(why);
        if (!cuda_only.empty()) {
            auto r = run_command(xferlab() + " run '" + f.string() +
                                 "' --set scenario.backend=host --set transfer.bytes=1MiB --quiet "
                                 "--out '" + out.string() + "'");
            INFO(r.err);
            CHECK(r.exit_code == 2);
            for (const auto& why : cuda_only)
                CHECK(contains(r.err, why + "; this run's backend is host (use backend = "));
            continue;
        }
        auto r = run_command(xferlab() + " run '" + f.string() +
                             "' --set scenario.backend=host --set transfer.bytes=1MiB"
                             " --quiet --out '" + out.string() + "'");
        INFO(r.out);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        auto results = nlohmann::json::parse(slurp(out / "results.json"));
        size_t expected = 0;
        for (const auto& run : results["runs"]) {
            // launcher mpi outside mpirun: skipped, with the reason, and no records.
            const std::string launcher = run["launcher"].get<std::string>();
            if (launcher == "mpi") {
                CHECK(run["status"].get<std::string>() == "skipped");
                CHECK(run["records"].empty());
                continue;
            }
            // python-ft and python-subinterp in a build without the executable they need (a
            // sanitizer build): skipped, naming it. A build that makes it runs them.
            if ((launcher == "python-ft" || launcher == "python-subinterp") &&
                run["status"].get<std::string>() == "skipped") {
                INFO(run["notes"].dump());
                CHECK_FALSE(sibling_configured(launcher == "python-ft" ? "xferlab-ft"
                                                                       : "xferlab-py313"));
                CHECK(contains(run["notes"].dump(), "is needed, and there is none at"));
                CHECK(run["records"].empty());
                continue;
            }
            // cupy_copy.py and torch_copy.py (frameworks.toml) need their framework and a CUDA
            // device: on the host backend their payloads skip the run (ctx.skip), saying why.
            // (const json: operator[] on a missing key is undefined; runs without a payload
            // have no "payload" key)
            const auto found = run.find("payload");
            const std::string payload =
                found != run.end() && found->is_object() ? found->value("name", "") : "";
            if (payload == "cupy_copy.py" || payload == "torch_copy.py") {
                INFO(run["notes"].dump());
                CHECK(run["status"].get<std::string>() == "skipped");
                CHECK(run["records"].empty());
                CHECK((contains(run["notes"].dump(), "docs/payload-api.md#which-python") ||
                       contains(run["notes"].dump(), "this run's backend has none")));
                continue;
            }
            CHECK(run["status"].get<std::string>() == "ok");
            const auto& s = run["settings"];
            int threads = s["threads"]["count"].get<int>();
            int copies = s["transfer"]["repetitions"].get<int>() + s["transfer"]["warmup"].get<int>();
            CHECK(run["records"].size() == size_t(threads * copies));
            // gap_after.py's short memcpy (isolate-gap.toml) moves the bytes its params name.
            const auto& params = s.value("params", nlohmann::json::object());
            const uint64_t bytes = params.contains("evict_bytes")
                                       ? params["evict_bytes"].get<uint64_t>()
                                       : uint64_t(1048576);
            for (const auto& rec : run["records"]) CHECK(rec["size_bytes"].get<uint64_t>() == bytes);
            expected += size_t(threads * copies);
        }
        CHECK(expected > 0);
        CHECK(count_lines(out / "copies.csv") == expected + 1);  // + header
        auto trace = nlohmann::json::parse(slurp(out / "trace.json"));
        CHECK(trace.contains("traceEvents"));
        CHECK(fs::exists(out / "journal.jsonl"));
        CHECK(count_lines(out / "journal.jsonl") == results["runs"].size());
        fs::remove_all(out);
    }
}

TEST_CASE("isolate-handoff on the host backend: spin gaps recorded, hand-offs analysed",
          "[integration]") {
    const auto file = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-handoff.toml";
    auto out = fresh_temp_dir("handoff");
    auto r = run_command(xferlab() + " run '" + file.string() +
                         "' --set scenario.backend=host --set transfer.bytes=256KiB"
                         " --set transfer.repetitions=4 --quiet --out '" + out.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto results = nlohmann::json::parse(slurp(out / "results.json"));
    REQUIRE(results["runs"].size() == 8);
    for (const auto& run : results["runs"]) {
        INFO(run["label"].get<std::string>());
        CHECK(run["status"].get<std::string>() == "ok");
        const auto& a = run["analysis"];
        REQUIRE(a["handoffs"].size() == 1);  // the host backend's one "device"
        CHECK(a["handoffs"][0]["clock"] == "host");
        CHECK(a["handoffs"][0]["copies"].get<int>() == 16);
        CHECK(a["gap_ns"]["n"].get<int>() == 16);  // a gap before every measured copy
        const std::string between = run["settings"]["threads"]["between"].get<std::string>();
        if (between.rfind("spin:", 0) != 0) continue;
        const int64_t asked = run["settings"]["threads"]["between_sleep_ns"].get<int64_t>();
        for (const auto& rec : run["records"]) {
            if (rec["repetition"].get<int>() == -1) {
                CHECK(rec["between_ns"].get<int64_t>() == 0);  // nothing before the first copy
            } else {
                CHECK(rec["between_ns"].get<int64_t>() >= asked);
            }
        }
    }
    fs::remove_all(out);
}

TEST_CASE("isolate-context on the host fallback: runs needing CUDA skipped, the others run",
          "[integration]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto file = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-context.toml";
    auto out = fresh_temp_dir("context");
    auto r = run_command(xferlab() + " run '" + file.string() +
                         "' --set transfer.bytes=256KiB --trials 1 --out '" + out.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.err, "; 4 of 6 runs need CUDA and are skipped\n"));
    CHECK(r.out.find("needs the cuda backend") != std::string::npos);
    const auto results = nlohmann::json::parse(slurp(out / "results.json"));
    // [[run]] x the memory sweep: pageable and pinned.
    REQUIRE(results["runs"].size() == 6);
    int skipped = 0;
    for (const auto& run : results["runs"]) {
        INFO(run["label"].get<std::string>());
        const auto& t = run["settings"]["transfer"];
        const bool cuda_only = t["context"] == "per-worker" || t["host_memory"] == "pinned";
        CHECK(run["status"].get<std::string>() == (cuda_only ? "skipped" : "ok"));
        skipped += cuda_only ? 1 : 0;
    }
    CHECK(skipped == 4);
    fs::remove_all(out);
}

TEST_CASE("check reports every planted error with line and column, exit 2", "[integration]") {
    auto dir = fresh_temp_dir("bad");
    auto file = dir / "bad.toml";
    std::ofstream(file) << "[scenario]\n"
                           "name = \"bad\"\n"
                           "[transfer]\n"
                           "bytes = \"12 parsecs\"\n"       // line 4: bad size
                           "repetitons = 3\n"               // line 5: unknown key (did you mean)
                           "[threads]\n"
                           "count = \"many\"\n"             // line 7: wrong type
                           "[[run]]\n"
                           "launcher = \"host\"\n";
    auto r = run_command(xferlab() + " check '" + file.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.toml:4:") != std::string::npos);
    CHECK(r.err.find("bad.toml:5:") != std::string::npos);
    CHECK(r.err.find("bad.toml:7:") != std::string::npos);
    CHECK(r.err.find("repetitions") != std::string::npos);  // the did-you-mean
    fs::remove_all(dir);
}

TEST_CASE("run refuses bad input before running anything, exit 2", "[integration]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "seed-h2d-threads.toml";
    auto out = fresh_temp_dir("refuse");
    auto r = run_command(xferlab() + " run '" + seed.string() +
                         "' --set threads.count=0 --quiet --out '" + out.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--set") != std::string::npos);
    CHECK_FALSE(fs::exists(out / "results.json"));
    fs::remove_all(out);
}

TEST_CASE("devices names the host backend and says why cuda is or is not there", "[integration]") {
    auto r = run_command(xferlab() + " devices");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("host") != std::string::npos);
    CHECK(r.out.find("cuda") != std::string::npos);
}

TEST_CASE("version and help flags exit 0", "[integration]") {
    CHECK(run_command(xferlab() + " --version").exit_code == 0);
    auto help = run_command(xferlab() + " --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("run") != std::string::npos);
}

TEST_CASE("report re-renders a results.json and list names every scenario", "[integration]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-start.toml";
    auto out = fresh_temp_dir("report");
    auto r = run_command(xferlab() + " run '" + seed.string() +
                         "' --set scenario.backend=host --set transfer.bytes=256KiB --quiet --out '" +
                         out.string() + "'");
    REQUIRE(r.exit_code == 0);
    auto again = run_command(xferlab() + " report '" + (out / "results.json").string() + "'");
    INFO(again.err);
    CHECK(again.exit_code == 0);
    CHECK(again.out == r.out);  // same records, same analysis: the same table
    auto csv = run_command(xferlab() + " report --format csv '" + (out / "results.json").string() + "'");
    CHECK(csv.exit_code == 0);
    CHECK(csv.out == slurp(out / "copies.csv"));
    CHECK(run_command(xferlab() + " report /nonexistent.json").exit_code == 2);

    auto list = run_command(xferlab() + " list");
    CHECK(list.exit_code == 0);
    for (const auto& f : scenario_files()) CHECK(list.out.find(f.filename().string()) != std::string::npos);
    fs::remove_all(out);
}

TEST_CASE("a payload that raises fails its run with the traceback and exit 1", "[integration]") {
    auto dir = fresh_temp_dir("payload");
    std::ofstream(dir / "broken.py") << "def main(ctx):\n"
                                        "    raise RuntimeError('planted failure')\n";
    std::ofstream(dir / "broken.toml") << "[scenario]\nname = \"broken\"\nbackend = \"host\"\n"
                                          "[transfer]\nbytes = \"64KiB\"\n"
                                          "[[run]]\nlauncher = \"host\"\n"
                                          "[[run]]\nlauncher = \"python\"\npayload = \"broken.py\"\n";
    auto out = dir / "out";
    auto r = run_command(xferlab() + " run '" + (dir / "broken.toml").string() + "' --payload-dir '" +
                         dir.string() + "' --quiet --out '" + out.string() + "'");
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("planted failure") != std::string::npos);
    CHECK(r.out.find("broken.py") != std::string::npos);
    // The host run before it is kept, complete.
    auto results = nlohmann::json::parse(slurp(out / "results.json"));
    REQUIRE(results["runs"].size() == 2);
    CHECK(results["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(results["runs"][1]["status"].get<std::string>() == "failed");
    fs::remove_all(dir);
}

TEST_CASE("a bad config file is refused with every error and its position, exit 2", "[integration]") {
    auto dir = fresh_temp_dir("config");
    std::ofstream(dir / "bad.toml") << "[output]\n"
                                       "format = \"xml\"\n"           // line 2: not allowed
                                       "colour = true\n"              // line 3: unknown key
                                       "[run]\n"
                                       "timeout = \"soon\"\n";        // line 5: not a duration
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-start.toml";
    auto r = run_command(xferlab() + " run '" + seed.string() + "' --config '" +
                         (dir / "bad.toml").string() + "' --quiet --out '" + (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.toml:2:") != std::string::npos);
    CHECK(r.err.find("expected one of: table, json, csv") != std::string::npos);
    CHECK(r.err.find("bad.toml:3:") != std::string::npos);
    CHECK(r.err.find("unknown key") != std::string::npos);
    CHECK(r.err.find("bad.toml:5:") != std::string::npos);
    CHECK(r.err.find("expected a duration") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
    auto missing = run_command(xferlab() + " list --config '" + (dir / "none.toml").string() + "'");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("config file not found") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("run refuses an output folder it cannot create and a plan larger than memory", "[integration]") {
    auto seed = fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-start.toml";
    auto r = run_command(xferlab() + " run '" + seed.string() +
                         "' --set scenario.backend=host --set transfer.bytes=64KiB --quiet"
                         " --out /proc/xferlab-cannot-be-here");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cannot create output folder /proc/xferlab-cannot-be-here") != std::string::npos);

    auto out = fresh_temp_dir("huge");
    auto huge = run_command(xferlab() + " run '" + seed.string() +
                            "' --set scenario.backend=host --set transfer.bytes=64TiB --quiet --out '" +
                            out.string() + "'");
    INFO(huge.err);
    CHECK(huge.exit_code == 2);
    CHECK(huge.err.find("of host memory") != std::string::npos);
    CHECK(huge.err.find("nothing was run") != std::string::npos);
    CHECK_FALSE(fs::exists(out / "results.json"));
    fs::remove_all(out);
}

TEST_CASE("report names a file that is not a results.json", "[integration]") {
    auto dir = fresh_temp_dir("notresults");
    std::ofstream(dir / "x.json") << "{\"hello\": 1}\n";
    auto r = run_command(xferlab() + " report '" + (dir / "x.json").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("x.json is JSON but not an xferlab results.json (it has no "
                     "schema_version): give the results.json (or results.sqlite, or "
                     "journal.jsonl) that `xferlab run` wrote\n") != std::string::npos);
    auto missing = run_command(xferlab() + " report '" + (dir / "none.json").string() + "'");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("none.json cannot be opened: No such file or directory\n") !=
          std::string::npos);
    fs::remove_all(dir);
}
