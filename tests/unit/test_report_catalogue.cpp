// The catalogue's constants: the table docs/reading-reports.md prints (which the explanations
// audit reads) is the one the rules apply, name for name and value for value.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "report/explain/explanation_rules.hpp"
#include "report/analysis/finding.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

// The rows "| `name` | value | meaning |" of the section "The catalogue's constants".
std::map<std::string, double> documented_constants() {
    std::ifstream in(std::string(XFER_SOURCE_DIR) + "/docs/reading-reports.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const size_t start = doc.find("### The catalogue's constants");
    REQUIRE(start != std::string::npos);
    const size_t end = doc.find("\n### ", start + 1);
    const std::string section = doc.substr(start, end - start);
    std::map<std::string, double> out;
    const std::regex row(R"(\| `([a-z_]+)` \| ([0-9.]+) \|)");
    for (auto it = std::sregex_iterator(section.begin(), section.end(), row);
         it != std::sregex_iterator(); ++it)
        out[(*it)[1]] = std::stod((*it)[2]);
    return out;
}

}  // namespace

TEST_CASE("the documented constants are the ones the rules apply", "[report][catalogue]") {
    const auto documented = documented_constants();
    CHECK(documented.size() == rule_constants().size());
    for (const RuleConstant& c : rule_constants()) {
        INFO(c.name);
        REQUIRE(documented.count(c.name) == 1);
        CHECK(documented.at(c.name) == Approx(c.value));
    }
}

TEST_CASE("a finding's sentence is rendered from its own fields", "[report][catalogue]") {
    Finding a;
    a.say("device {d}: rate {r} ({partner})").claim("d", "0").figure("r", 0.2, "0.20").runs(
        "partner", {1, 6});
    CHECK(a.text() == "device 0: rate 0.20 (runs 1, 6)");
    // Text from the results (a label with braces) goes in a field, never read as a placeholder.
    Finding label;
    label.say("baseline: {label}").claim("label", "x{r}y");
    CHECK(label.text() == "baseline: x{r}y");
}
