#include "cli/cmd_plot.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/common_options.hpp"
#include "cli/config_loading.hpp"
#include "embed/python.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/reporter.hpp"
#include "results/results_reader.hpp"
#include "run/config.hpp"
#include "util/terminal_text.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

const std::vector<std::string> plot_formats = {"png", "svg"};

// Notes and messages of the figure code may quote the results (a run's label): they reach
// stderr through util/terminal_text.hpp. The figures' names are printed as they are: paths.

// What goes before the figures' names, so that several results files can share a folder:
// "seed-1gpu.results.json" -> "seed-1gpu.", "results.json", "results.sqlite" or
// "journal.jsonl" -> "".
std::string figure_prefix(const fs::path& file) {
    std::string stem = file.stem().string();
    const std::string suffix = ".results";
    if (stem.size() > suffix.size() &&
        stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
        stem.resize(stem.size() - suffix.size());
    return stem == "results" || stem == "journal" ? "" : stem + ".";
}

// Moves every run's records out of `results`, leaving its runs without any (their text then
// carries "records": []).
RunRecords take_records(Results& results) {
    RunRecords records;
    records.reserve(results.runs.size());
    for (auto& run : results.runs) {
        records.push_back(std::move(run.records));
        run.records.clear();
        run.records_file.clear();
    }
    return records;
}

// The results re-analysed by this build, as results.json text, and their records apart: the
// figures show the numbers `xferlab report` prints for the same file, even when the file's own
// analysis is older, and get the records as compact columns (draw_plots) instead of as text.
PlotOutcome draw(Results results, PlotRequest request) {
    const Analysis analysis = analyze(results);
    RunRecords records = take_records(results);
    std::ostringstream text;
    make_reporter("json")->write(results, analysis, text);
    request.lib_dir = python_lib_dir();
    return draw_plots(text.str(), std::move(records), request);
}

std::string file_names(const std::vector<fs::path>& files) {
    std::string out;
    for (const auto& f : files) out += (out.empty() ? "" : ", ") + f.filename().string();
    return out;
}

}  // namespace

CLI::App* add_plot_command(CLI::App& app, PlotOptions& options) {
    auto* cmd = app.add_subcommand(
        "plot",
        "Draw a results file's figures with matplotlib: timeline, per-copy distribution, "
        "aggregate per run, sweeps, hand-off rate against the gap");
    cmd->add_option("file", options.file,
                    "results.json (or results.sqlite, or journal.jsonl) written by `xferlab run`, "
                    "or the results folder that holds it")
        ->required();
    cmd->add_option("--out", options.out, "Folder for the figures (default: the file's folder)");
    cmd->add_option("--format", options.format, "png | svg")->check(CLI::IsMember(plot_formats));
    one_value_per_flag(
        cmd->add_option("--run", options.runs, "A run to draw, by index or label (repeatable)"));
    cmd->add_option("--config", options.config,
                    "Config file read after config/xferlab.toml (its python.executable draws)")
        ->type_name("FILE.toml");
    return cmd;
}

int cmd_plot(const PlotOptions& options) {
    // The figures are drawn by the embedded Python: the one the config names, as for `run`.
    if (!load_config_or_report(CommonOptions{options.config, {}})) return exit_bad_input;
    auto results = read_results(options.file, std::cerr);
    if (!results) return exit_bad_input;
    const std::string file = results_file_in(options.file);  // a results folder's file
    PlotRequest request;
    request.out_dir = options.out ? fs::path(*options.out) : fs::path(file).parent_path();
    if (request.out_dir.empty()) request.out_dir = ".";
    std::error_code ec;
    fs::create_directories(request.out_dir, ec);
    if (ec || !fs::is_directory(request.out_dir)) {
        std::cerr << "xferlab: cannot create the folder " << request.out_dir.string() << ": "
                  << (ec ? ec.message() : "not a folder") << "\n";
        return exit_bad_input;
    }
    request.format = options.format;
    request.prefix = figure_prefix(file);
    request.runs = options.runs;
    const PlotOutcome outcome = draw(std::move(*results), request);
    for (const auto& note : outcome.notes) std::cerr << "note: " << terminal_safe(note) << "\n";
    for (const auto& file : outcome.files) std::cout << file.string() << "\n";
    switch (outcome.status) {
        case PlotOutcome::Status::drawn:
            return exit_ok;
        case PlotOutcome::Status::bad_input:
        case PlotOutcome::Status::missing_dependency:
            std::cerr << "xferlab: " << options.file << ": " << terminal_safe(outcome.message)
                      << "\n";
            return exit_bad_input;
        case PlotOutcome::Status::failed:
            break;
    }
    std::cerr << "xferlab: drawing the figures of " << options.file
              << " failed: " << terminal_safe_lines(outcome.message) << "\n";
    return exit_run_failed;
}

void plot_after_run(const Results& results, const fs::path& dir, bool announce) {
    PlotRequest request;
    request.out_dir = dir;
    const PlotOutcome outcome = draw(results, request);
    if (outcome.status != PlotOutcome::Status::drawn) {
        std::cerr << "xferlab: warning: figures not drawn: " << terminal_safe_lines(outcome.message)
                  << "\n";
        return;
    }
    if (!announce) return;
    for (const auto& note : outcome.notes) std::cerr << "note: " << terminal_safe(note) << "\n";
    std::cerr << "figures: " << dir.string() << "/ (" << file_names(outcome.files) << ")\n";
}

}  // namespace xfer
