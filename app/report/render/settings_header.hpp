#pragma once
// What ran, for the top of the terminal report: the settings every run shares, once, and for
// each run of the plan (its trials together) only the settings in which it differs. Built from
// the typed settings through the settings table (settings/setting_keys.hpp), so that a key added
// there is reported without a line here.
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct SettingText {
    std::string name;   // "transfer.host_memory", "launcher"
    std::string value;  // "pageable", "64 MiB"
    // In the common block: some runs do not have the key ([staging] of runs that do not stage,
    // the GIL of a launcher that never takes it); those that have it agree.
    bool where_it_applies = false;
};

// One run's settings as text, in the order the header prints them: the [[run]]'s own keys
// (launcher, payload, gil where it applies, mimic, backend, timeout), then [transfer], [threads],
// [staging] when the run staged, and its payload parameters. Keys its file did not record are
// left out.
std::vector<SettingText> settings_text(const RunResult& run);

struct SettingsHeader {
    std::vector<SettingText> common;  // equal in every run
    struct Differs {
        std::string label;  // the run of the plan (its trials share it)
        std::vector<SettingText> settings;
    };
    std::vector<Differs> differs;         // one per run of the plan with settings of its own
    std::vector<std::string> unrecorded;  // keys some run's file lacks (older results)
};

SettingsHeader settings_header(const Results& results, const Analysis& analysis);

// "command: xferlab run ... (in DIR)", or that the file does not say.
std::string command_text(const Results& results);

// "What ran (every run)" and "What differs between runs" (when they do).
// `with_defaults`: every setting every run shares (--full); else only those that differ from
// their defaults (the default report).
std::string settings_header_text(const Results& results, const Analysis& analysis,
                                 bool with_defaults);

}  // namespace xfer
