#include "report/render/settings_header.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/render/table_run_section.hpp"  // kTableWidth
#include "settings/engine_options.hpp"
#include "settings/setting_keys.hpp"
#include "settings/vocabulary.hpp"
#include "util/text_table.hpp"
#include "util/command_line.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

bool recorded(const RunSettings& s, const std::string& dotted) {
    const std::string table = dotted.substr(0, dotted.find('.'));
    return !s.unrecorded.count(dotted) && !s.unrecorded.count(table);
}

void run_keys(const RunResult& r, std::vector<SettingText>& out) {
    const RunSettings& s = r.settings;
    const auto add = [&](const char* name, std::string value) {
        if (recorded(s, name)) out.push_back({name, std::move(value)});
    };
    add("launcher", s.launcher);
    add("payload", s.payload.empty() ? "none" : s.payload);
    const LauncherDescriptor* launcher = find_launcher(s.launcher);
    // A launcher that never takes the GIL has no GIL setting to report.
    if (launcher && gil_applies(launcher->traits, !s.payload.empty())) add("gil", to_string(s.gil));
    add("mimic", s.mimic == Mimic::none ? "none" : to_string(s.mimic));
    // As the scenario wrote it, and the backend that ran where "auto" chose.
    const bool chosen = !r.backend_used.empty() && r.backend_used != s.backend;
    add("backend", chosen ? fmt::format("{} (ran on {})", s.backend, r.backend_used) : s.backend);
    add("timeout", timeout_text(s.timeout_ns));
}

void table_keys(const RunSettings& s, std::vector<SettingText>& out) {
    for (const std::string& table : setting_tables()) {
        // [staging] acts only on staged copies: for the others it is noise.
        if (table == "staging" && s.transfer.path != CopyPath::staged) continue;
        for (const SettingKey& k : setting_key_descriptors()) {
            if (k.table != table || !recorded(s, k.dotted())) continue;
            const nlohmann::json v = setting_value(k, s.transfer, s.threads);
            out.push_back({k.dotted(), v.is_string() ? v.get<std::string>() : v.dump()});
        }
        // Keys an older xferlab recorded and this one retired: shown as they ran.
        for (const auto& [dotted, v] : s.retired)
            if (dotted.rfind(table + ".", 0) == 0)
                out.push_back({dotted, v.is_string() ? v.get<std::string>() : v.dump()});
    }
    if (recorded(s, "params") && s.params.is_object())
        for (const auto& [name, v] : s.params.items())
            out.push_back({"params." + name, v.is_string() ? v.get<std::string>() : v.dump()});
}

// What "What differs" shows for a run that does not have a key (a parameter of one payload).
constexpr const char* kAbsent = "-";

// Each key's value, or kAbsent where a run does not have the key.
std::string value_of(const std::vector<SettingText>& settings, const std::string& name) {
    for (const SettingText& s : settings)
        if (s.name == name) return s.value;
    return kAbsent;
}

std::string table_of(const SettingText& s) {
    const size_t dot = s.name.find('.');
    return dot == std::string::npos ? "run" : s.name.substr(0, dot);
}

// Settings in table order, written "table: key = value, ..." per table (the [[run]]'s own keys
// first, under "run"), each table's line wrapped. A setting that only some runs have says so,
// once for its table when all of the table's settings are such.
std::string settings_lines(const std::vector<SettingText>& settings, const std::string& indent) {
    const auto whole_table_applies_to_some = [&](const std::string& t) {
        return std::all_of(settings.begin(), settings.end(), [&](const SettingText& s) {
            return table_of(s) != t || s.where_it_applies;
        });
    };
    std::string out, table, line;
    bool table_note = false;
    const auto flush = [&] {
        if (!line.empty()) out += wrap(line, kTableWidth, indent, indent + "    ");
        line.clear();
    };
    for (const SettingText& s : settings) {
        const size_t dot = s.name.find('.');
        const std::string t = table_of(s);
        const std::string key = dot == std::string::npos ? s.name : s.name.substr(dot + 1);
        if (t != table) {
            flush();
            table = t;
            table_note = whole_table_applies_to_some(t);
            line = t + (table_note ? " (the runs it applies to): " : ": ");
        } else {
            line += ", ";
        }
        line += key + " = " + s.value;
        if (s.where_it_applies && !table_note) line += " (where it applies)";
    }
    flush();
    return out;
}

}  // namespace

std::vector<SettingText> settings_text(const RunResult& run) {
    std::vector<SettingText> out;
    // A watched program ran with no settings of xferlab's: its section says what it did.
    if (const LauncherDescriptor* d = find_launcher(run.settings.launcher);
        d && d->traits.observes_program) {
        out.push_back({"launcher", run.settings.launcher});
        out.push_back({"backend", run.backend_used});
        return out;
    }
    run_keys(run, out);
    table_keys(run.settings, out);
    return out;
}

SettingsHeader settings_header(const Results& results, const Analysis& analysis) {
    SettingsHeader h;
    if (results.runs.empty()) return h;
    // One run per run of the plan: trials differ in nothing but their number.
    std::vector<const RunResult*> plan;
    for (const TrialGroup& g : analysis.groups) plan.push_back(&results.runs[size_t(g.runs[0])]);
    std::vector<std::vector<SettingText>> each;
    std::vector<std::string> names;  // every key any run has, in first-seen order
    for (const RunResult* r : plan) {
        each.push_back(settings_text(*r));
        for (const SettingText& s : each.back())
            if (std::find(names.begin(), names.end(), s.name) == names.end())
                names.push_back(s.name);
        for (const std::string& u : r->settings.unrecorded)
            if (std::find(h.unrecorded.begin(), h.unrecorded.end(), u) == h.unrecorded.end())
                h.unrecorded.push_back(u);
    }
    std::vector<std::string> differing;
    for (const std::string& name : names) {
        // Runs without the key neither agree nor differ: they do not have it.
        std::vector<std::string> values;
        for (const auto& settings : each) values.push_back(value_of(settings, name));
        const auto has = std::find_if(values.begin(), values.end(),
                                      [](const std::string& v) { return v != kAbsent; });
        const bool same = std::all_of(values.begin(), values.end(), [&](const std::string& v) {
            return v == kAbsent || v == *has;
        });
        if (same)
            h.common.push_back({name, *has, std::count(values.begin(), values.end(), kAbsent) > 0});
        else
            differing.push_back(name);
    }
    for (size_t i = 0; i < plan.size(); ++i) {
        SettingsHeader::Differs d{analysis.groups[i].label, {}};
        for (const std::string& name : differing)
            d.settings.push_back({name, value_of(each[i], name)});
        if (!d.settings.empty()) h.differs.push_back(std::move(d));
    }
    return h;
}

std::string command_text(const Results& results) {
    const CommandLine& c = results.command;
    if (c.argv.empty())
        return "command: not recorded (results written before xferlab recorded it)\n";
    return wrap(fmt::format("command: {}{}", shell_text(c.argv),
                            c.cwd.empty() ? "" : " (in " + c.cwd + ")"),
                kTableWidth, "", "  ");
}

namespace {

// A setting's value where a scenario does not set it: the [[run]]'s own keys and every table
// key of a default TransferSpec and ThreadSpec, as the header writes them.
std::string default_text(const std::string& name) {
    static const std::map<std::string, std::string> defaults = [] {
        std::map<std::string, std::string> out{
            {"mimic", "none"}, {"timeout", timeout_text(0)}, {"backend", "auto"}};
        const TransferSpec transfer;
        const ThreadSpec threads;
        for (const SettingKey& k : setting_key_descriptors()) {
            const nlohmann::json v = setting_value(k, transfer, threads);
            out[k.dotted()] = v.is_string() ? v.get<std::string>() : v.dump();
        }
        // A retired option recorded at its default then stays among the defaults (issue #55).
        for (const RetiredOption& r : retired_engine_options())
            if (!r.was_default.empty()) out["staging." + r.name] = r.was_default;
        return out;
    }();
    const auto it = defaults.find(name);
    return it == defaults.end() ? "" : it->second;
}

}  // namespace

std::string settings_header_text(const Results& results, const Analysis& analysis,
                                 bool with_defaults) {
    std::string out;
    SettingsHeader h = settings_header(results, analysis);
    if (h.common.empty() && h.differs.empty()) return out;
    if (!with_defaults)
        h.common.erase(std::remove_if(h.common.begin(), h.common.end(),
                                      [](const SettingText& s) {
                                          return s.value == default_text(s.name);
                                      }),
                       h.common.end());
    std::vector<std::string> about;
    if (results.runs.size() > 1) about.push_back("every run");
    if (!with_defaults) about.push_back("the settings at their defaults: --full");
    out += "\nWhat ran" + (about.empty() ? "" : fmt::format(" ({})", fmt::join(about, "; "))) +
           "\n";
    out += settings_lines(h.common, "  ");
    if (!h.unrecorded.empty()) {
        std::vector<std::string> names = h.unrecorded;
        std::sort(names.begin(), names.end());
        out += wrap(fmt::format("not recorded in this file (results from before these keys "
                                "existed; their defaults stand in): {}",
                                fmt::join(names, ", ")),
                    kTableWidth, "  ", "    ");
    }
    if (h.differs.empty()) return out;
    out += "\nWhat differs between runs\n";
    for (const auto& d : h.differs) {
        std::vector<std::string> pairs;
        for (const SettingText& s : d.settings) pairs.push_back(s.name + " = " + s.value);
        out +=
            wrap(fmt::format("{}: {}", d.label, fmt::join(pairs, ", ")), kTableWidth, "  ", "    ");
    }
    return out;
}

}  // namespace xfer
