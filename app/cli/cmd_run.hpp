#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cli/common_options.hpp"

namespace xfer {

struct RunOptions {
    CommonOptions common;
    std::vector<std::string> files;
    std::vector<std::string> sets;      // --set key=value
    std::optional<std::string> out;     // --out DIR
    std::optional<std::string> format;  // table | json | csv
    bool quiet = false;                 // no progress line
    bool fit = false;                   // --fit: smaller copies when the plan does not fit
    bool force = false;                 // --force: delete an earlier run's files in the folder
    DetailFlags detail;                 // --brief, --full: how much the table says
    int trials = 0;                     // --trials N: --set scenario.trials=N (0: not given)
};

CLI::App* add_run_command(CLI::App& app, RunOptions& options);

// `xferlab run`: every file's plan, its results folder and report.
int cmd_run(const RunOptions& options);

}  // namespace xfer
