#include "cli/cmd_help.hpp"

#include <iostream>

#include "cli/cli.hpp"
#include "report/explain/explanation_rules.hpp"
#include "results/record_fields_doc.hpp"
#include "scenario/scenario_keys.hpp"
#include "util/text_table.hpp"

namespace xfer {
namespace {

constexpr size_t kWidth = 100;
constexpr const char* kScenarioKeys = "scenario-keys";
constexpr const char* kExplanations = "explanations";
constexpr const char* kRecordFields = "record-fields";

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
    std::vector<std::string> topics{kScenarioKeys, kExplanations, kRecordFields};
    for (const CLI::App* sub : visible_commands(app)) topics.push_back(sub->get_name());
    return topics;
}

CLI::App* add_help_command(CLI::App& app, std::string& topic, HelpForm& form) {
    auto* cmd = app.add_subcommand(
        "help", "Help on a command, or every scenario key: xferlab help scenario-keys");
    cmd->add_option("topic", topic, "scenario-keys, explanations, record-fields or a command")
        ->check(CLI::IsMember(help_topics(app)));
    cmd->add_flag("--markdown", form.markdown,
                  "With explanations or record-fields: the tables as docs/reading-reports.md "
                  "holds them");
    cmd->add_flag("--json", form.json, "With record-fields: the table as JSON");
    return cmd;
}

int cmd_help(CLI::App& app, const std::string& topic, HelpForm form) {
    if (form.markdown && topic != kExplanations && topic != kRecordFields) {
        std::cerr << "xferlab help: --markdown goes with the topic explanations or "
                     "record-fields\n";
        return exit_bad_input;
    }
    if (form.json && (topic != kRecordFields || form.markdown)) {
        std::cerr << "xferlab help: --json goes with the topic record-fields alone\n";
        return exit_bad_input;
    }
    if (topic == kRecordFields) {
        if (form.json)
            std::cout << record_fields_json().dump(1) << "\n";
        else if (form.markdown)
            std::cout << record_fields_markdown();
        else
            std::cout << wrap(
                             "Every field of a copy's record: its key in results.json, its "
                             "column in results.sqlite's copies table (and the store schema "
                             "that added it) and in copies.csv. --markdown gives the whole "
                             "table, as docs/reading-reports.md (\"A record\") holds it.",
                             kWidth, "", "")
                      << "\n"
                      << record_fields_text(kWidth);
    } else if (form.markdown) {
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
                     "switch and margin);\nxferlab help record-fields (every field of a copy's "
                     "record, in each file);\nxferlab help COMMAND (its flags).\n";
    }
    return exit_ok;
}

}  // namespace xfer
