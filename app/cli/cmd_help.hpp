#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace xfer {

// The commands a user runs (not the hidden `worker`), in the order of the help.
std::vector<const CLI::App*> visible_commands(const CLI::App& app);

// What `xferlab help` takes: "scenario-keys", "explanations", "record-fields" and the name of
// each command of `app`.
std::vector<std::string> help_topics(const CLI::App& app);

// `help`'s forms of a table: --markdown (explanations, record-fields), --json (record-fields).
struct HelpForm {
    bool markdown = false;
    bool json = false;
};

// `xferlab help [TOPIC]`: the program's help and its topics; a command's help; or
// (scenario-keys) every scenario key with its type, default and meaning, from the descriptors;
// (explanations) the explanations' catalogue; (record-fields) the record fields' table.
int cmd_help(CLI::App& app, const std::string& topic, HelpForm form = {});

// Registered after every other command: its topics are the commands added before it.
CLI::App* add_help_command(CLI::App& app, std::string& topic, HelpForm& form);

}  // namespace xfer
