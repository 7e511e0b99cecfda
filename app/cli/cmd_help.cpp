#include "cli/cmd_help.hpp"

#include <iostream>

#include "cli/cli.hpp"
#include "report/explain/explanation_rules.hpp"
#include "util/text_table.hpp"
#include "scenario/scenario_keys.hpp"

namespace xfer {
namespace {

constexpr size_t kWidth = 100;
constexpr const char* kScenarioKeys = "scenario-keys";
constexpr const char* kExplanations = "explanations";

void print_scenario_keys() {
    std::cout << wrap(
        "Scenario keys, as a scenario file sets them ([transfer] bytes = ...) and "
        "--set takes them (--set transfer.bytes=...; not run.* or sweep.*). "
        "docs/scenarios.md says more about each.",
        kWidth, "", "");
    TextTable t;
    t.add_column("key", TextTable::Align::left);
    t.add_column("type", TextTable::Align::left);
    t.add_column("default", TextTable::Align::left);
    t.add_column("meaning", TextTable::Align::left, true);
    for (const auto& d : scenario_key_descriptors())
        t.add_row({d.key, d.type, d.default_value, d.meaning});
    std::cout << t.render(kWidth, 0);
}

}  // namespace

std::vector<const CLI::App*> visible_commands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<std::string> help_topics(const CLI::App& app) {
    std::vector<std::string> topics{kScenarioKeys, kExplanations};
    for (const CLI::App* sub : visible_commands(app)) topics.push_back(sub->get_name());
    return topics;
}

CLI::App* add_help_command(CLI::App& app, std::string& topic, bool& markdown) {
    auto* cmd = app.add_subcommand(
        "help", "Help on a command, or every scenario key: xferlab help scenario-keys");
    cmd->add_option("topic", topic, "scenario-keys or a command")
        ->check(CLI::IsMember(help_topics(app)));
    cmd->add_flag("--markdown", markdown,
                  "With explanations: the catalogue's tables as docs/reading-reports.md holds them");
    return cmd;
}

int cmd_help(CLI::App& app, const std::string& topic, bool markdown) {
    if (markdown && topic != kExplanations) {
        std::cerr << "xferlab help: --markdown goes with the topic explanations\n";
        return exit_bad_input;
    }
    if (markdown) {
        std::cout << explanation_catalogue_markdown();
    } else if (topic == kScenarioKeys) {
        print_scenario_keys();
    } else if (topic == kExplanations) {
        std::cout << "Every kind of explanation the report prints, as its rule states it "
                     "(docs/reading-reports.md, \"Explanations\"):\n\n"
                  << explanation_catalogue();
    } else if (!topic.empty()) {
        std::cout << app.get_subcommand(topic)->help(app.get_name());
    } else {
        // The formatter directly: app.help() would describe the command given, `help` itself.
        std::cout << app.get_formatter()->make_help(&app, app.get_name(),
                                                    CLI::AppFormatMode::Normal)
                  << "\nTopics: xferlab help scenario-keys (every scenario key: type, default, "
                     "meaning);\nxferlab help explanations (every kind of explanation: its data, "
                     "switch and margin);\nxferlab help COMMAND (its flags).\n";
    }
    return exit_ok;
}

}  // namespace xfer
