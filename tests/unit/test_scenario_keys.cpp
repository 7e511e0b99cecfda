// The scenario key descriptors (`xferlab help scenario-keys`, the shell completion): one for
// every key the loader accepts and no other, each default accepted by the loader, and every key
// in docs/scenarios.md.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "scenario/scenario_keys.hpp"
#include "settings/engine_defaults.hpp"
#include "settings/setting_keys.hpp"
#include "support/catch.hpp"
#include "util/format.hpp"

using namespace xfer;
using namespace xfer::scenario_internal;

namespace {

std::vector<std::string> described(const std::string& prefix) {
    std::vector<std::string> keys;
    for (const auto& d : scenario_key_descriptors())
        if (d.key.rfind(prefix, 0) == 0) keys.push_back(d.key.substr(prefix.size()));
    return keys;
}

// A default that is a TOML value (not "(file name)").
bool literal(const ScenarioKeyDescriptor& d) { return d.default_value.front() != '('; }

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The text of docs/scenarios.md under the heading that starts with `heading`, up to the next.
std::string section(const std::string& doc, const std::string& heading) {
    const size_t start = doc.find("\n" + heading);
    if (start == std::string::npos) return "";
    const size_t end = doc.find("\n## ", start + 1);
    return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// Whether the first cell of a row of the section's key table names `key`: "| `count` |", or
// "| `transfer.<key>`, `threads.<key>` |".
bool documented(const std::string& text, const std::string& key) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| `", 0) != 0) continue;
        const std::string first = line.substr(0, line.find('|', 1));
        if (first.find("`" + key + "`") != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("a descriptor for every key the loader accepts, and for no other", "[scenario][keys]") {
    CHECK(described("scenario.") == scenario_keys());
    CHECK(described("transfer.") == setting_keys("transfer"));
    CHECK(described("threads.") == setting_keys("threads"));
    CHECK(described("staging.") == setting_keys("staging"));
    // [[run]]: its own keys, then the [transfer] and [threads] overrides.
    std::vector<std::string> run = described("run.");
    CHECK(run == std::vector<std::string>{"launcher", "label", "payload", "gil", "mimic",
                                          "transfer.<key>", "threads.<key>", "staging.<key>",
                                          "params.<key>"});
    std::vector<std::string> firsts;
    for (const auto& k : run) firsts.push_back(k.substr(0, k.find('.')));
    CHECK(firsts == run_keys());
    CHECK(described("params.") == std::vector<std::string>{"<key>"});
    CHECK(described("sweep.") == std::vector<std::string>{"<key>"});
    // Nothing else: every descriptor is one of the above.
    CHECK(scenario_key_descriptors().size() ==
          scenario_keys().size() + all_setting_keys().size() + run.size() + 2);
    // --set takes the [scenario], [transfer] and [threads] keys.
    std::vector<std::string> set;
    for (const auto& d : scenario_key_descriptors())
        if (d.key.rfind("run.", 0) != 0 && d.key.find('<') == std::string::npos)
            set.push_back(d.key);
    CHECK(set == set_flag_keys());
}

TEST_CASE("each descriptor has a type, a default and a one-line meaning", "[scenario][keys]") {
    std::set<std::string> keys;
    for (const auto& d : scenario_key_descriptors()) {
        INFO(d.key);
        CHECK(keys.insert(d.key).second);
        CHECK_FALSE(d.type.empty());
        CHECK_FALSE(d.default_value.empty());
        CHECK_FALSE(d.meaning.empty());
        CHECK(d.meaning.find('\n') == std::string::npos);
        CHECK(d.meaning.size() <= 72);  // the help table's meaning column fits 100 columns
    }
}

TEST_CASE("each default a descriptor gives is accepted by the loader, and unknown keys are not",
          "[scenario][keys]") {
    const std::string one_run = "[[run]]\nlauncher = \"host\"\n";
    for (const auto& d : scenario_key_descriptors()) {
        if (!literal(d) || d.key.rfind("run.", 0) == 0) continue;
        INFO(d.key + "=" + d.default_value);
        CHECK_NOTHROW(parse_scenario(one_run, "keys.toml", {d.key + "=" + d.default_value}));
    }
    // The [[run]] keys' defaults, in a run whose launcher takes them all.
    std::string run = "[[run]]\n";
    for (const auto& d : scenario_key_descriptors()) {
        if (!literal(d) || d.key.rfind("run.", 0) != 0) continue;
        run += d.key.substr(4) + " = " +
               (d.key == "run.launcher" ? "\"process\"" : d.default_value) + "\n";
    }
    INFO(run);
    CHECK_NOTHROW(parse_scenario(run, "keys.toml"));
    CHECK_THROWS_AS(parse_scenario(one_run, "keys.toml", {"threads.bogus=1"}), ScenarioError);
    CHECK_THROWS_AS(parse_scenario(one_run + "bogus = 1\n", "keys.toml"), ScenarioError);
}

TEST_CASE("docs/scenarios.md documents every key in its table's section", "[scenario][keys]") {
    const std::string doc = read(std::filesystem::path(XFER_SOURCE_DIR) / "docs" / "scenarios.md");
    REQUIRE_FALSE(doc.empty());
    for (const auto& d : scenario_key_descriptors()) {
        INFO(d.key);
        const std::string table = d.key.substr(0, d.key.find('.'));
        const std::string key = d.key.substr(table.size() + 1);
        if (key == "<key>") {  // [params] and [sweep] are free-form: a section says what they take
            CHECK_FALSE(section(doc, "## [" + table + "]").empty());
            continue;
        }
        const std::string heading = table == "run" ? "## [[run]]" : "## [" + table + "]";
        const std::string text = section(doc, heading);
        REQUIRE_FALSE(text.empty());
        CHECK(documented(text, key));
    }
}

namespace {

// The row of the section's key table whose first cell is `key`; "" when none.
std::string table_row(const std::string& text, const std::string& key) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("| `" + key + "` |", 0) == 0) return line;
    return "";
}

}  // namespace

TEST_CASE("docs/scenarios.md gives the engine's auto numbers of settings/engine_defaults.hpp",
          "[scenario][keys]") {
    // The numbers are in one struct; the docs' prose around them is the docs' own, so the test
    // holds each number where the [staging] table states it.
    const EngineDefaults& d = kEngineDefaults;
    const std::string doc = read(std::filesystem::path(XFER_SOURCE_DIR) / "docs" / "scenarios.md");
    const std::string staging = section(doc, "## [staging]");
    REQUIRE_FALSE(staging.empty());
    const std::vector<std::pair<std::string, std::string>> stated = {
        {"threads", fmt::format("at most {} (the cap)", d.max_auto_threads)},
        {"chunk",
         fmt::format("`auto`: {} (eight to an {} DMA", format_size(d.chunk), format_size(d.dma()))},
        {"chunk", fmt::format("with `dma = \"chunk\"` {} to the device and {} from it",
                              format_size(d.chunk_to_device_per_chunk_dma),
                              format_size(d.chunk_from_device_per_chunk_dma))},
        {"buffers", fmt::format("`auto`: {} with shared DMAs", d.buffers)},
        {"buffers", fmt::format("{} with `dma = \"chunk\"`", d.buffers_per_chunk_dma)},
        {"buffers", fmt::format("(`auto` threads as {};", d.max_auto_threads)},
        {"dma", fmt::format("`auto`: {} chunks", d.chunks_per_dma)},
    };
    for (const auto& [key, text] : stated) {
        INFO(key << ": " << text);
        CHECK(table_row(staging, key).find(text) != std::string::npos);
    }
    // The prose spells two numbers out: "twice as many helpers", "eight to an 8 MiB DMA".
    CHECK(table_row(staging, "threads").find("twice as many helpers") != std::string::npos);
    CHECK(d.helpers_per_link_share == 2.0);
    CHECK(d.chunks_per_dma == 8);
}
