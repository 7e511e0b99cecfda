#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/common_options.hpp"

namespace xfer {

struct WatchCommandOptions {
    CommonOptions common;
    std::vector<std::string> command;   // CMD ARGS, after `--`
    std::optional<std::string> out;     // --out DIR
    std::string min_bytes = "0";        // --min-bytes SIZE
    std::optional<std::string> format;  // table | json | csv
    bool quiet = false;
    bool force = false;
    bool no_reference = false;
    bool calibrate = false;
    bool no_thread_names = false;
    DetailFlags detail;
};

CLI::App* add_watch_command(CLI::App& app, WatchCommandOptions& options);

// `xferlab watch -- CMD ARGS...`: the command run with its copies recorded, its report, and
// its exit status as xferlab's (run/watch/watch_command.hpp).
int cmd_watch(const WatchCommandOptions& options);

}  // namespace xfer
