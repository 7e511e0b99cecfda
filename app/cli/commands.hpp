#pragma once
// One function per subcommand; each returns an exit code (cli.hpp).
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct CommonOptions {
    std::optional<std::string> config;       // --config FILE
    std::vector<std::string> payload_dirs;   // --payload-dir DIR, repeatable
};

struct RunOptions {
    CommonOptions common;
    std::vector<std::string> files;
    std::vector<std::string> sets;      // --set key=value
    std::optional<std::string> out;     // --out DIR
    std::optional<std::string> format;  // table | json | csv
    bool quiet = false;                 // no progress line
    bool fit = false;                   // --fit: smaller copies when the plan does not fit
};

int cmd_run(const RunOptions& options);
int cmd_check(const CommonOptions& common, const std::vector<std::string>& files,
              const std::vector<std::string>& sets);
int cmd_list(const CommonOptions& common);
int cmd_devices(const CommonOptions& common, bool json);
int cmd_threads(const CommonOptions& common);
int cmd_report(const std::string& file, const std::string& format);

}  // namespace xfer
