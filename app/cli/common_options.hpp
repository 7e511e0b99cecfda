#pragma once
// Flags every command takes (and run and report's --brief and --full). Each command lives in
// cmd_<name>.cpp with its header cmd_<name>.hpp: add_<name>_command registers it and its options
// with the command line, cmd_<name> runs it and returns an exit code (cli.hpp).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/render/reporter.hpp"

namespace xfer {

// A repeatable option (a vector) that takes exactly one value per flag: `--set k=v FILE` keeps
// FILE a scenario file. CLI11 lets a vector option take every plain argument after it
// (allow_extra_args, which expected(1) alone does not turn off) as long as one is left for
// the required positional, so `run --set k=v A.toml B.toml` read A.toml as a value.
inline CLI::Option* one_value_per_flag(CLI::Option* option) {
    return option->expected(1)->allow_extra_args(false)->multi_option_policy(
        CLI::MultiOptionPolicy::TakeAll);
}

struct CommonOptions {
    std::optional<std::string> config;      // --config FILE
    std::vector<std::string> payload_dirs;  // --payload-dir DIR, repeatable
};

// --config and --payload-dir on `sub`.
inline void add_common_options(CLI::App* sub, CommonOptions& common) {
    sub->add_option("--config", common.config, "Config file read after config/xferlab.toml")
        ->type_name("FILE.toml");
    one_value_per_flag(sub->add_option("--payload-dir", common.payload_dirs,
                                       "Payload folder searched before python_payloads/ "
                                       "(repeatable)"))
        ->type_name("DIR");
}

// A whole number from `low` to `high`; anything else is named with the range ("abc" is not a
// number "out of range", as CLI::Range says of it).
inline CLI::Validator whole_number(int low, int high) {
    return CLI::Validator(
        [low, high](const std::string& text) -> std::string {
            const bool digits = !text.empty() && text.size() < 10 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (digits && std::stoi(text) >= low && std::stoi(text) <= high) return "";
            return "expected a whole number from " + std::to_string(low) + " to " +
                   std::to_string(high) + "; got '" + text + "'";
        },
        "N", "whole_number");
}

// run and check --trials N: --set scenario.trials=N, written last so that it wins.
inline void add_trials_option(CLI::App* sub, int& trials) {
    sub->add_option("--trials", trials,
                    "Run every run N times (scenario.trials): verdicts compare the trials")
        ->type_name("N")
        ->check(whole_number(1, 1000));
}

// run and check --set KEY=VALUE: one per flag, repeated for more; a list would swallow the
// scenario files that follow it (`run --set threads.count=2 FILE`).
inline void add_set_option(CLI::App* sub, std::vector<std::string>& sets, const std::string& help) {
    one_value_per_flag(sub->add_option("--set", sets, help))->type_name("KEY=VALUE");
}

// run and plot --out "": names no folder, said before the path reaches the filesystem.
inline std::optional<std::string> empty_out(const std::optional<std::string>& out,
                                            const std::string& command,
                                            const std::string& otherwise) {
    if (!out || !out->empty()) return std::nullopt;
    return "xferlab " + command + ": --out is empty: give a folder, or leave --out out for " +
           otherwise;
}

// run and report --brief / --full: how much the table says (report/render/reporter.hpp).
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
