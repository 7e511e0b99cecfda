// Issue 54, item 2: a key of 30,000 dotted parts (or a table header of 20,000) overflowed the
// stack inside TOML++ (SIGSEGV). The text's nesting is counted before TOML++ sees it: a key
// deeper than kMaxTomlDepth is refused at its line and column, one at the limit is read, and
// what only looks deep (brackets and dots in strings and comments, floats) counts for nothing.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "scenario/toml_depth.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using xfer::test::contains;
using namespace xfer;
using xfer::scenario_internal::kMaxTomlDepth;
using xfer::scenario_internal::toml_depth_problem;

namespace {

// "a.a.a" of `n` parts.
std::string dotted(int n, const std::string& part = "a") {
    std::string key = part;
    for (int i = 1; i < n; ++i) key += "." + part;
    return key;
}

std::string scenario_with(const std::string& body) {
    return "[scenario]\nname = \"deep\"\nbackend = \"host\"\n[[run]]\nlauncher = \"host\"\n" + body;
}

// The diagnostics of loading `text` (none when it loads).
std::vector<Diagnostic> load_problems(const std::string& text,
                                      const std::vector<std::string>& sets = {}) {
    try {
        parse_scenario(text, "deep.toml", sets);
    } catch (const ScenarioError& e) {
        return e.diagnostics();
    }
    return {};
}

}  // namespace

TEST_CASE("toml depth: a key of 30,000 dotted parts is refused at its line and column, not parsed",
          "[scenario][limits]") {
    // Before the bound this crashed the process (SIGSEGV in TOML++), so a failure here is the
    // test binary dying.
    const auto d = load_problems(scenario_with("[params]\n  " + dotted(30000) + " = 1\n"));
    REQUIRE(d.size() == 1);
    CHECK(d[0].file == "deep.toml");
    CHECK(d[0].line == 7);
    CHECK(d[0].column == 3);
    CHECK(d[0].message ==
          "this key is nested 30001 levels deep (table header, dotted key parts, inline tables "
          "and arrays counted together); xferlab reads at most 256 levels");
}

TEST_CASE("toml depth: a table header of 20,000 parts is refused", "[scenario][limits]") {
    const auto d = load_problems(scenario_with("[params." + dotted(19999, "b") + "]\nx = 1\n"));
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 6);
    CHECK(d[0].column == 2);
    CHECK(contains(d[0].message, "this table header is nested 20000 levels deep"));
    // [[array.of.tables]] the same.
    const auto arrays = load_problems(scenario_with("[[" + dotted(20000, "c") + "]]\n"));
    REQUIRE(arrays.size() == 1);
    CHECK(contains(arrays[0].message, "this table header is nested 20000 levels deep"));
}

TEST_CASE("toml depth: header, dotted parts, inline tables and arrays add up",
          "[scenario][limits]") {
    // 200 + 56 = 256: read; one more part is one level too many.
    const std::string header = "[" + dotted(200, "h") + "]\n";
    CHECK_FALSE(toml_depth_problem(header + dotted(56) + " = 1\n"));
    const auto over = toml_depth_problem(header + dotted(57) + " = 1\n");
    REQUIRE(over);
    CHECK(over->depth == 257);
    CHECK(over->line == 2);
    // An inline table's keys sit under the key that holds it: 128 levels of `k.k = {` put x at
    // level 257; 127 at 255.
    std::string inline_tables;
    for (int i = 0; i < 128; ++i) inline_tables += dotted(2, "k") + " = {";
    const auto nested = toml_depth_problem(inline_tables + "x = 1");
    REQUIRE(nested);
    CHECK(nested->depth == 257);
    CHECK_FALSE(toml_depth_problem(inline_tables.substr(6) + "x = 1"));
    // Arrays count a level each: an inline table in 255 arrays under a top-level key.
    const std::string arrays = "a = " + std::string(255, '[') + "{ b = 1 }" + std::string(255, ']');
    const auto deep = toml_depth_problem(arrays);
    REQUIRE(deep);
    CHECK(deep->what == "key");
    CHECK(deep->depth == 257);
    CHECK_FALSE(
        toml_depth_problem("a = " + std::string(254, '[') + "{ b = 1 }" + std::string(254, ']')));
}

TEST_CASE("toml depth: brackets and dots in strings, comments and numbers count for nothing",
          "[scenario][limits]") {
    const std::string brackets(2000, '[');
    const std::string deep_key = dotted(3000);
    std::string text;
    for (const std::string& line : {
             std::string("[params]"),
             "basic = \"" + brackets + deep_key + "\\\"" + brackets + "\"",
             "literal = '" + brackets + "'",
             "multi = \"\"\"\n" + brackets + "\n" + deep_key + " = 1\n\"\"\"",
             "multi_literal = '''" + deep_key + "''''",  // the string ends in one quote
             "# " + deep_key + " = 1 " + brackets,
             "floats = [1.5, 2.5e3, 07:32:00.999]" + std::string(),
         })
        text += line + "\n";
    CHECK_FALSE(toml_depth_problem(text));
    CHECK(load_problems(scenario_with(text)).empty());
}

TEST_CASE("toml depth: a --set value or key nested too deep is refused at the flag's column",
          "[scenario][limits]") {
    const std::string scenario = scenario_with("");
    // The value is an inline table: TOML++ nested it as deep as a file's key.
    const auto d = load_problems(scenario, {"params.x={" + dotted(30000) + " = 1}"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].file == "--set");
    CHECK(d[0].key == "params.x");
    CHECK(d[0].column == 11);
    CHECK(contains(d[0].message, "this key is nested 30001 levels deep"));
    // A key of 30,000 parts: xferlab splits it, not TOML++, but the parameters are copied,
    // written and handed to Python by recursion (`run` crashed with SIGSEGV, `check` under
    // ASan): the same bound, the key shown cut.
    const auto key = load_problems(scenario, {"params." + dotted(30000) + "=1"});
    REQUIRE(key.size() == 1);
    CHECK(key[0].key == "params." + dotted(17) + "...");
    CHECK(key[0].column == 1);
    CHECK(contains(key[0].message, "this key is nested 30001 levels deep"));
    CHECK(load_problems(scenario, {"params." + dotted(255) + "=1"}).empty());
}
