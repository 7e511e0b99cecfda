#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace xfer {

struct Results;

struct PlotOptions {
    std::string file;                // results.json or journal.jsonl
    std::optional<std::string> out;  // --out DIR; default: the results file's folder
    std::string format = "png";      // --format png | svg
    std::vector<std::string> runs;   // --run N|LABEL, repeatable; empty: every run
    std::optional<std::string> config;  // --config FILE: its python.executable draws the figures
};

// Registers `plot` with its options on `app` (kept here so that cli.cpp only dispatches).
CLI::App* add_plot_command(CLI::App& app, PlotOptions& options);

// `xferlab plot`: the figures of a results file, drawn by python/xferlab_plots (matplotlib).
// Exit 2 for bad input and when matplotlib is missing, 1 when drawing failed.
int cmd_plot(const PlotOptions& options);

// `run` with output.plots = true: the figures (PNG) into the results folder `dir`, after every
// other output. A failure is a warning on stderr: the run's own exit code stands.
void plot_after_run(const Results& results, const std::filesystem::path& dir, bool announce);

}  // namespace xfer
