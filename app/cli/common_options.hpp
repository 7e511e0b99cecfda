#pragma once
// Flags every command takes (and run and report's --brief and --full). Each command lives in
// cmd_<name>.cpp with its header cmd_<name>.hpp: add_<name>_command registers it and its options
// with the command line, cmd_<name> runs it and returns an exit code (cli.hpp).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/reporter.hpp"

namespace xfer {

struct CommonOptions {
    std::optional<std::string> config;      // --config FILE
    std::vector<std::string> payload_dirs;  // --payload-dir DIR, repeatable
};

// --config and --payload-dir on `sub`.
inline void add_common_options(CLI::App* sub, CommonOptions& common) {
    sub->add_option("--config", common.config, "Config file read after config/xferlab.toml")
        ->type_name("FILE.toml");
    // One folder per flag: a list would swallow the scenario files that follow it.
    sub->add_option("--payload-dir", common.payload_dirs,
                    "Payload folder searched before python_payloads/ (repeatable)")
        ->type_name("DIR")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// run and check --trials N: --set scenario.trials=N, written last so that it wins.
inline void add_trials_option(CLI::App* sub, int& trials) {
    sub->add_option("--trials", trials,
                    "Run every run N times (scenario.trials): verdicts compare the trials")
        ->type_name("N")
        ->check(CLI::Range(1, 1000));
}

// run and check --set KEY=VALUE: one per flag, repeated for more; a list would swallow the
// scenario files that follow it (`run --set threads.count=2 FILE`).
inline void add_set_option(CLI::App* sub, std::vector<std::string>& sets, const std::string& help) {
    sub->add_option("--set", sets, help)
        ->type_name("KEY=VALUE")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// run and plot --out "": names no folder, said before the path reaches the filesystem.
inline std::optional<std::string> empty_out(const std::optional<std::string>& out,
                                            const std::string& command,
                                            const std::string& otherwise) {
    if (!out || !out->empty()) return std::nullopt;
    return "xferlab " + command + ": --out is empty: give a folder, or leave --out out for " +
           otherwise;
}

// run and report --brief / --full: how much the table says (report/reporter.hpp).
struct DetailFlags {
    bool brief = false;
    bool full = false;
};

inline void add_detail_flags(CLI::App* sub, DetailFlags& flags) {
    auto* brief = sub->add_flag(
        "--brief", flags.brief,
        "Table: the runs, the bandwidth, the notes that change how they read and the summary");
    sub->add_flag("--full", flags.full,
                  "Table: every run's section too (workers, gaps, device and helper figures, "
                  "thread attributes); default: what ran, the runs, each finding once")
        ->excludes(brief);
}

// The table's detail, or the message when a flag asks it of a format other than the table.
inline std::optional<ReportDetail> report_detail(const DetailFlags& flags,
                                                 const std::string& format, std::string& why) {
    if ((flags.brief || flags.full) && format != "table") {
        why = std::string("xferlab: ") + (flags.brief ? "--brief" : "--full") +
              " sets how much the table says (--format table); --format " + format +
              " always writes everything";
        return std::nullopt;
    }
    return flags.full    ? ReportDetail::full
           : flags.brief ? ReportDetail::brief
                         : ReportDetail::concise;
}

}  // namespace xfer
