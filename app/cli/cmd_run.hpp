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
    bool brief = false;                 // --brief: the table's runs, bandwidth and summary
};

// `xferlab run`: every file's plan, its results folder and report.
int cmd_run(const RunOptions& options);

}  // namespace xfer
