// `xferlab plot` and output.plots (issue #17): every figure from the committed fixtures
// (tests/fixtures/plots, host backend), valid PNG and SVG files, one timeline lane per worker,
// clear messages for runs without copies, a missing matplotlib, and `run` keeping its outputs
// and exit code whatever the figures do; the copies handed over as columns (issue #28) draw
// what the records in results.json text drew; the hand-off figure (issue #31) where
// threads.between varies.
//
// Where the embedded Python has no matplotlib (XFER_TEST_MATPLOTLIB=0, found at configure time:
// the GPU host's venv) the tests that draw check the one-line message instead, and warn.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

const fs::path fixtures = fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures" / "plots";
constexpr bool have_matplotlib = XFER_TEST_MATPLOTLIB != 0;
const std::string no_matplotlib =
    "matplotlib cannot be imported (No module named 'matplotlib'): install the Debian package "
    "python3-matplotlib";

CommandResult plot(const fs::path& file, const std::string& args, const std::string& env = "") {
    return run_command(env + xferlab() + " plot '" + file.string() + "' " + args);
}

bool starts_with_png_magic(const fs::path& file) {
    return slurp(file).rfind(std::string("\x89PNG\r\n\x1a\n", 8), 0) == 0;
}

// The ids of the SVG's <g> elements, read by Python's XML parser: a file that is not
// well-formed XML fails here (exit 1, the parser's message).
CommandResult svg_group_ids(const fs::path& file) {
    return run_command(std::string("'") + XFER_TEST_PYTHON +
                       "' -c 'import sys, xml.etree.ElementTree as E\n"
                       "for g in E.parse(sys.argv[1]).iter(\"{http://www.w3.org/2000/svg}g\"):\n"
                       "    print(g.get(\"id\", \"\"))' '" +
                       file.string() + "'");
}

// A lane's own group ("lane-run2-worker1"); its bars' groups add "-host", "-device"...
bool is_lane_id(const std::string& id) {
    return id.rfind("lane-", 0) == 0 && std::count(id.begin(), id.end(), '-') == 2;
}

// A folder whose xferlab_plots is the real one and whose `matplotlib` cannot be imported:
// with XFERLAB_PYTHON_LIB pointing there, xferlab sees a machine without matplotlib.
fs::path lib_without_matplotlib(const fs::path& dir) {
    const fs::path lib = dir / "lib";
    fs::create_directories(lib / "matplotlib");
    fs::create_directory_symlink(fs::path(XFER_SOURCE_DIR) / "python" / "xferlab_plots",
                                 lib / "xferlab_plots");
    std::ofstream(lib / "matplotlib" / "__init__.py")
        << "raise ModuleNotFoundError(\"No module named 'matplotlib'\", name='matplotlib')\n";
    return lib;
}

std::string without_matplotlib_env(const fs::path& dir) {
    return "XFERLAB_PYTHON_LIB='" + lib_without_matplotlib(dir).string() + "' ";
}

// The figures as `plot` drew them before it handed the copies over as columns: the figure code
// run by the build's Python on `report --format json`'s text (the text `plot` handed over then,
// every record in it). The notes are printed one a line.
CommandResult draw_from_record_text(const fs::path& results, const fs::path& out,
                                    const std::string& prefix) {
    auto report = run_command(xferlab() + " report '" + results.string() + "' --format json");
    if (report.exit_code != 0) return report;
    fs::create_directories(out);
    const fs::path text = out.parent_path() / (out.filename().string() + ".json");
    std::ofstream(text) << report.out;
    return run_command("PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='" +
                       (fs::path(XFER_SOURCE_DIR) / "python").string() + "' '" +
                       XFER_TEST_PYTHON +
                       "' -c 'import sys, xferlab_plots as p\n"
                       "a = sys.argv\n"
                       "d = p.draw(open(a[1], \"rb\").read(), a[2], a[3], [], a[4])\n"
                       "print(\"\\n\".join(d[\"notes\"]))' '" +
                       text.string() + "' '" + out.string() + "' svg '" + prefix + "'");
}

// An SVG's text with matplotlib's clip-path ids taken out (hashed from object addresses by
// matplotlib 3.11): what differs between two drawings of the same data.
std::string svg_without_clip_ids(const fs::path& file) {
    static const std::regex clip_id(R"((url\(#|id=")p[0-9a-f]+)");
    return std::regex_replace(slurp(file), clip_id, "$1p");
}

fs::path plots_config(const fs::path& dir) {
    const fs::path file = dir / "plots.toml";
    std::ofstream(file) << "[output]\nplots = true\n";
    return file;
}

}  // namespace

TEST_CASE("plot draws every figure of the fixture as PNG, named after the file, exit 0",
          "[integration][plot]") {
    auto dir = fresh_temp_dir("plot-png");
    auto r = plot(fixtures / "sweep.results.json", "--out '" + dir.string() + "'");
    INFO(r.err);
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: figures not checked");
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, no_matplotlib));
        return;
    }
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> expected = {"timeline", "distribution", "aggregate",
                                               "sweep-threads.count"};
    REQUIRE(lines_of(r.out).size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const fs::path file = dir / ("sweep." + expected[i] + ".png");
        INFO(file);
        CHECK(lines_of(r.out)[i] == file.string());
        CHECK(starts_with_png_magic(file));
    }
    CHECK(r.err.empty());
    fs::remove_all(dir);
}

TEST_CASE("plot --format svg: well-formed XML, one timeline lane per worker of every run",
          "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: SVG not checked");
        return;
    }
    auto dir = fresh_temp_dir("plot-svg");
    const fs::path results = fixtures / "sweep.results.json";
    auto r = plot(results, "--format svg --out '" + dir.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& name : lines_of(r.out)) {
        INFO(name);
        CHECK(svg_group_ids(name).exit_code == 0);
    }
    // Lanes expected from the fixture itself: worker 0..threads-1 of each run.
    std::set<std::string> expected;
    const json fixture = json::parse(slurp(results));
    for (const auto& run : fixture.at("runs"))
        for (int w = 0; w < run.at("threads").get<int>(); ++w)
            expected.insert("lane-run" + std::to_string(run.at("index").get<int>()) + "-worker" +
                            std::to_string(w));
    REQUIRE(expected.size() == 6);  // 1 + 1 + 2 + 2 workers
    auto ids = svg_group_ids(dir / "sweep.timeline.svg");
    INFO(ids.err);
    REQUIRE(ids.exit_code == 0);
    std::set<std::string> lanes;
    for (const auto& id : lines_of(ids.out))
        if (is_lane_id(id)) lanes.insert(id);
    CHECK(lanes == expected);
    // The same results draw the same picture: no date; the clip-path ids are matplotlib's own
    // (stable with svg.hashsalt on Debian's 3.6, hashed from object addresses by 3.11), so
    // they are compared with their names taken out.
    auto again = plot(results, "--format svg --out '" + (dir / "again").string() + "'");
    REQUIRE(again.exit_code == 0);
    const std::regex clip_id(R"((url\(#|id=")p[0-9a-f]+)");
    CHECK(std::regex_replace(slurp(dir / "again" / "sweep.timeline.svg"), clip_id, "$1p") ==
          std::regex_replace(slurp(dir / "sweep.timeline.svg"), clip_id, "$1p"));
    fs::remove_all(dir);
}

TEST_CASE("plot draws hand-off rate against the measured gap where threads.between varies",
          "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: not checked");
        return;
    }
    auto dir = fresh_temp_dir("plot-handoff");
    const fs::path results = measured_fixture("h200-restructure-cause.isolate-handoff");
    auto r = plot(results, "--format svg --out '" + dir.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const fs::path figure = dir / "h200-restructure-cause.isolate-handoff.handoff.svg";
    CHECK(contains(r.out, figure.string() + "\n"));
    auto ids = svg_group_ids(figure);
    INFO(ids.err);
    REQUIRE(ids.exit_code == 0);
    std::set<std::string> handoff;
    for (const auto& id : lines_of(ids.out))
        if (id.rfind("handoff-", 0) == 0) handoff.insert(id);
    // Every run a captioned point; host and Python threads apart; the six host runs that differ
    // in threads.between alone one line on each panel; both bands.
    CHECK(handoff ==
          std::set<std::string>{"handoff-run0", "handoff-run1", "handoff-run2", "handoff-run3",
                                "handoff-run4", "handoff-run5", "handoff-run6", "handoff-run7",
                                "handoff-host-rate", "handoff-host-p50", "handoff-python-rate",
                                "handoff-python-p50", "handoff-switch0-rate", "handoff-switch0-p50",
                                "handoff-band-keep", "handoff-band-hand"});
    // Not drawn where threads.between does not vary (the fixture's thread sweep).
    auto sweep = plot(fixtures / "sweep.results.json", "--out '" + (dir / "sweep").string() + "'");
    REQUIRE(sweep.exit_code == 0);
    CHECK(lines_of(sweep.out).size() == 4);  // timeline, distribution, aggregate, sweep
    CHECK_FALSE(contains(sweep.out, "sweep.handoff."));
    fs::remove_all(dir);
}

TEST_CASE(
    "plot: a failed run and a run with zero copies are named, not drawn, and nothing left "
    "to draw is exit 2 with the reasons, never a traceback",
    "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: not checked");
        return;
    }
    auto dir = fresh_temp_dir("plot-failed");
    const fs::path results = fixtures / "failed.results.json";
    const std::string failed_run =
        "run 1 (python gil=release payload=raises.py): failed, no copies (RuntimeError: this "
        "payload fails on purpose)";
    const std::string empty_run = "run 2 (python gil=release payload=no_copies.py): ok, no copies";

    auto all = plot(results, "--out '" + dir.string() + "'");
    INFO(all.err);
    CHECK(all.exit_code == 0);
    CHECK(contains(all.err, "note: " + failed_run + ": not drawn\n"));
    CHECK(contains(all.err, "note: " + empty_run + ": not drawn\n"));
    CHECK(starts_with_png_magic(dir / "failed.timeline.png"));

    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"--run 1", failed_run}, {"--run 2", empty_run}, {"--run 1 --run 2", failed_run}}) {
        auto r = plot(results, args + " --out '" + (dir / "none").string() + "'");
        INFO(args << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "xferlab: " + results.string() + ": nothing to draw: " + says));
        CHECK_FALSE(contains(r.err, "Traceback"));
        CHECK(r.out.empty());
    }
    fs::remove_all(dir);
}

TEST_CASE("plot --run names a run that does not exist: exit 2, the runs listed",
          "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: not checked");
        return;
    }
    auto dir = fresh_temp_dir("plot-run");
    auto r = plot(fixtures / "sweep.results.json", "--run 7 --out '" + dir.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err,
                   "--run 7: no run with that index or label; the runs are 0 (host "
                   "threads.count=1), 1 (python gil=release threads.count=1), 2 (host "
                   "threads.count=2), 3 (python gil=release threads.count=2)"));
    // A label selects as an index does.
    auto by_label = plot(fixtures / "sweep.results.json",
                         "--run 'host threads.count=2' --format svg --out '" + dir.string() + "'");
    INFO(by_label.err);
    REQUIRE(by_label.exit_code == 0);
    auto ids = svg_group_ids(dir / "sweep.timeline.svg");
    CHECK(contains(ids.out, "lane-run2-worker1\n"));
    CHECK_FALSE(contains(ids.out, "lane-run0-"));
    fs::remove_all(dir);
}

TEST_CASE("plot without matplotlib: one line naming python3-matplotlib, exit 2, no file",
          "[integration][plot]") {
    auto dir = fresh_temp_dir("plot-nompl");
    auto r = plot(fixtures / "sweep.results.json", "--out '" + (dir / "out").string() + "'",
                  without_matplotlib_env(dir));
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "xferlab: " + (fixtures / "sweep.results.json").string() + ": " + no_matplotlib + "\n");
    CHECK(fs::is_empty(dir / "out"));
    fs::remove_all(dir);
}

TEST_CASE(
    "run with output.plots = true: figures after every other output, and without "
    "matplotlib a warning, and the exit code is the runs' own",
    "[integration][plot]") {
    auto dir = fresh_temp_dir("run-plots");
    const std::string run = xferlab() + " run '" + (fixtures / "failed.toml").string() +
                            "' --payload-dir '" + fixtures.string() + "' --config '" +
                            plots_config(dir).string() + "' --out ";
    const std::vector<std::string> outputs = {"results.json", "copies.csv", "trace.json",
                                              "journal.jsonl"};

    auto with = run_command(run + "'" + (dir / "with").string() + "'");
    INFO(with.err);
    CHECK(with.exit_code == 1);  // run 1 of failed.toml fails on purpose
    for (const auto& f : outputs) CHECK(fs::exists(dir / "with" / f));
    if (have_matplotlib) {
        CHECK(contains(with.err, "figures: " + (dir / "with").string() +
                                     "/ (timeline.png, distribution.png, aggregate.png)\n"));
        CHECK(starts_with_png_magic(dir / "with" / "timeline.png"));
    }

    auto without =
        run_command(without_matplotlib_env(dir) + run + "'" + (dir / "without").string() + "'");
    INFO(without.err);
    CHECK(without.exit_code == 1);
    CHECK(contains(without.err, "xferlab: warning: figures not drawn: " + no_matplotlib + "\n"));
    for (const auto& f : outputs) CHECK(fs::exists(dir / "without" / f));
    CHECK_FALSE(fs::exists(dir / "without" / "timeline.png"));
    // The report on stdout is whole: the warning went to stderr.
    CHECK(contains(without.out, "python gil=release payload=no_copies.py"));
    CHECK(contains(without.out, "\nSummary\n"));
    fs::remove_all(dir);
}

TEST_CASE("output.plots must be true or false: file:line:column, exit 2", "[integration][plot]") {
    auto dir = fresh_temp_dir("plots-config");
    const fs::path config = dir / "bad.toml";
    std::ofstream(config) << "[output]\nplots = \"yes\"\n";
    auto r =
        run_command(xferlab() + " run '" + (fixtures / "sweep.toml").string() + "' --config '" +
                    config.string() + "' --quiet --out '" + (dir / "out").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, config.string() + ":2:9: error: output.plots: expected true or false"));
    CHECK_FALSE(fs::exists(dir / "out"));
    fs::remove_all(dir);
}

TEST_CASE("plot: staging helper threads get a lane each after the workers, with their busy spans",
          "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not importable by the embedded Python: nothing to draw");
        return;
    }
    // The fixture's run 0 with two helper threads added as a staged run records them (the host
    // backend cannot stage, so the spans are planted inside the run's copies).
    json results = json::parse(slurp(fixtures / "sweep.results.json"));
    json& run = results["runs"][0];
    int64_t start = run["records"][0]["host_start_ns"].get<int64_t>();
    json helper = run["thread_infos"][0];
    helper["launcher"] = "staging (device 0)";
    helper["busy_dropped"] = 0;
    for (int k = 0; k < 2; ++k) {
        helper["worker"] = k;
        helper["busy"] = json::array({json::array({start + 1000 * k, start + 50000 + 1000 * k})});
        run["helper_threads"].push_back(helper);
    }
    fs::path dir = fresh_temp_dir("plot-helpers");
    std::ofstream(dir / "staged.results.json") << results.dump();
    auto r = plot(dir / "staged.results.json",
                  "--format svg --run 0 --out '" + (dir / "out").string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto ids = svg_group_ids(dir / "out" / "staged.timeline.svg");
    REQUIRE(ids.exit_code == 0);
    std::set<std::string> lanes, helper_bars;
    for (const auto& id : lines_of(ids.out)) {
        if (is_lane_id(id)) lanes.insert(id);
        if (id.rfind("lane-run0-helper", 0) == 0 && id.size() > 4 &&
            id.substr(id.size() - 5) == "-host")
            helper_bars.insert(id);
    }
    CHECK(lanes.count("lane-run0-helper0") == 1);
    CHECK(lanes.count("lane-run0-helper1") == 1);
    CHECK(helper_bars == std::set<std::string>{"lane-run0-helper0-host", "lane-run0-helper1-host"});
    fs::remove_all(dir);
}

TEST_CASE("plot draws a results.json whose records are in results.sqlite (output.inline_records)",
          "[integration][plot]") {
    auto dir = fresh_temp_dir("plot-store");
    const fs::path config = dir / "small.toml";
    std::ofstream(config) << "[output]\ninline_records = 2\n";
    auto run =
        run_command(xferlab() + " run '" + (fixtures / "sweep.toml").string() + "' --config '" +
                    config.string() + "' --quiet --out '" + (dir / "out").string() + "'");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    REQUIRE(contains(slurp(dir / "out" / "results.json"), "\"records_file\": \"results.sqlite\""));
    auto r = plot(dir / "out" / "results.json", "--out '" + dir.string() + "'");
    INFO(r.err);
    if (!have_matplotlib) {
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, no_matplotlib));
        return;
    }
    CHECK(r.exit_code == 0);
    CHECK(starts_with_png_magic(dir / "timeline.png"));
    fs::remove_all(dir);
}

TEST_CASE(
    "plot: with trials, one bar per label with its trials as points and its interval, and "
    "sweep lines through the trials' medians",
    "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not importable by the embedded Python: nothing to draw");
        return;
    }
    auto dir = fresh_temp_dir("plot-trials");
    auto run = run_command(xferlab() + " run '" + (fixtures / "sweep.toml").string() +
                           "' --trials 3 --quiet --out '" + (dir / "out").string() + "'");
    REQUIRE(run.exit_code == 0);
    auto r =
        plot(dir / "out" / "results.json", "--format svg --out '" + (dir / "svg").string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto ids = svg_group_ids(dir / "svg" / "aggregate.svg");
    REQUIRE(ids.exit_code == 0);
    const auto with = lines_of(ids.out);
    CHECK(std::count(with.begin(), with.end(), "trial-intervals") == 1);
    CHECK(std::count(with.begin(), with.end(), "trial-points") == 1);
    // 2 [[run]] tables x 2 sweep points = 4 labels, 3 trials each: 4 bars, not 12.
    const auto bars = std::count_if(with.begin(), with.end(), [](const std::string& id) {
        return id.rfind("aggregate-run", 0) == 0;
    });
    CHECK(bars == 4);
    auto sweep_ids = svg_group_ids(dir / "svg" / "sweep-threads.count.svg");
    REQUIRE(sweep_ids.exit_code == 0);
    const auto sweep = lines_of(sweep_ids.out);
    for (const std::string id : {"sweep-aggregate_Bps-line0", "sweep-aggregate_Bps-line1",
                                 "sweep-aggregate_Bps-trials0", "sweep-aggregate_Bps-trials1"})
        CHECK(std::count(sweep.begin(), sweep.end(), id) == 1);
    // One pass per run: no interval.
    auto one = plot(fixtures / "sweep.results.json",
                    "--format svg --out '" + (dir / "one").string() + "'");
    REQUIRE(one.exit_code == 0);
    auto one_ids = svg_group_ids(dir / "one" / "sweep.aggregate.svg");
    REQUIRE(one_ids.exit_code == 0);
    const auto without = lines_of(one_ids.out);
    CHECK(std::count(without.begin(), without.end(), "trial-intervals") == 0);
    CHECK(std::count(without.begin(), without.end(), "trial-points") == 0);
    fs::remove_all(dir);
}

TEST_CASE(
    "plot: the copies handed over as columns draw every fixture's figures and notes exactly as "
    "the records in results.json text did",
    "[integration][plot]") {
    if (!have_matplotlib) {
        WARN("matplotlib is not importable by the embedded Python: nothing to draw");
        return;
    }
    auto dir = fresh_temp_dir("plot-columns");
    for (const std::string name : {"sweep", "failed", "trials"}) {
        INFO(name);
        const fs::path results = fixtures / (name + ".results.json");
        auto columns = plot(results, "--format svg --out '" + (dir / name).string() + "'");
        INFO(columns.err);
        REQUIRE(columns.exit_code == 0);
        auto records = draw_from_record_text(results, dir / (name + "-records"), name + ".");
        INFO(records.err);
        REQUIRE(records.exit_code == 0);
        const auto files = lines_of(columns.out);
        CHECK(files.size() >= 3);
        for (const auto& file : files) {
            const fs::path drawn(file);
            INFO(drawn);
            CHECK(svg_without_clip_ids(drawn) ==
                  svg_without_clip_ids(dir / (name + "-records") / drawn.filename()));
        }
        std::vector<std::string> notes;
        for (const auto& note : lines_of(records.out))
            if (!note.empty()) notes.push_back("note: " + note);
        CHECK(lines_of(columns.err) == notes);
    }
    fs::remove_all(dir);
}

TEST_CASE("plot: a folder and a file whose names are not UTF-8 (byte 0xff) draw like any other",
          "[integration][plot]") {
    // Python decodes a str path as UTF-8: the folder's name reached the figure code as text and
    // plot failed with UnicodeDecodeError, where run, report and compare read the same folder.
    auto dir = fresh_temp_dir("plot-bytes");
    const fs::path folder = dir / "results-\xff";
    fs::create_directory(folder);
    fs::copy_file(fixtures / "sweep.results.json", folder / "sw\xff" "ep.results.json");
    auto r = plot(folder / "sw\xff" "ep.results.json", "--format svg");
    INFO(r.err);
    if (!have_matplotlib) {
        WARN("matplotlib is not importable by the embedded Python: nothing to draw");
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, no_matplotlib));
        return;
    }
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "UnicodeDecodeError"));
    const auto files = lines_of(r.out);
    REQUIRE(files.size() == 4);
    for (const auto& file : files) {
        INFO(file);
        // The names as the file system has them: the folder's byte, the file's prefix.
        CHECK(fs::path(file).parent_path() == folder);
        CHECK(fs::path(file).filename().string().rfind("sw\xff" "ep.", 0) == 0);
        CHECK(fs::is_regular_file(file));
    }
    // The results folder given by its name, figures into another such folder.
    fs::copy_file(fixtures / "sweep.results.json", folder / "results.json");
    auto into = plot(folder, "--out '" + (dir / "figures-\xfe").string() + "'");
    INFO(into.err);
    CHECK(into.exit_code == 0);
    CHECK(fs::is_regular_file(dir / "figures-\xfe" / "timeline.png"));
    fs::remove_all(dir);
}

TEST_CASE("plot of a 250-run sweep: the sweep figure, and one line naming --run for the rest",
          "[integration][plot]") {
    // Issue 54, item 6: a 1,500-run sweep took 148 s and 3.2 GB, then failed with matplotlib's
    // "Image size of 1100x75204 pixels is too large" and a Python trace (exit 1).
    if (!have_matplotlib) {
        WARN("matplotlib is not installed for the embedded Python: not checked");
        return;
    }
    const auto dir = fresh_temp_dir("plot-many");
    std::string values;
    for (int i = 0; i < 250; ++i) values += (i ? ", " : "") + std::to_string(4096 + i);
    std::ofstream(dir / "many.toml")
        << "[scenario]\nname = \"many\"\nbackend = \"host\"\n[transfer]\nbytes = 4096\n"
           "repetitions = 1\nwarmup = 0\n[[run]]\nlauncher = \"host\"\n[sweep]\n"
           "\"transfer.bytes\" = ["
        << values << "]\n";
    const auto ran = run_command(xferlab() + " run --quiet --out '" + (dir / "out").string() +
                                 "' '" + (dir / "many.toml").string() + "'");
    REQUIRE(ran.exit_code == 0);
    const auto r = plot(dir / "out", "");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == (dir / "out" / "sweep-transfer.bytes.png").string() + "\n");
    CHECK(contains(r.err,
                   "note: 250 runs selected (42 timeline pages): the timeline, "
                   "distribution and aggregate figures draw each run as a panel or row, "
                   "for at most 200 runs and 40 timeline pages; choose the runs to draw "
                   "with --run (an index or a label, repeatable)"));
    CHECK_FALSE(contains(r.err, "Traceback"));
    // Chosen with --run, they are drawn.
    const auto some = plot(dir / "out", "--run 0 --run 249");
    INFO(some.err);
    CHECK(some.exit_code == 0);
    CHECK(contains(some.out, "timeline.png\n"));
    CHECK(contains(some.out, "distribution.png\n"));
    fs::remove_all(dir);
}
