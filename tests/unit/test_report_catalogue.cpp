// The catalogue: the tables docs/reading-reports.md prints (which the explanations audit reads)
// are the rules' own rows and the constants they apply, name for name and value for value.
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

TEST_CASE("the documented rules are the rules' own rows, each with the test it rests on",
          "[report][catalogue]") {
    std::ifstream in(std::string(XFER_SOURCE_DIR) + "/docs/reading-reports.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string generated = explanation_catalogue_markdown();
    // Regenerate with `build/xferlab help explanations --markdown` where this fails.
    CHECK(text.str().find(generated) != std::string::npos);
    for (const ExplanationRule& r : explanation_rules()) {
        INFO(r.text.id);
        CHECK(std::string(r.text.test).size() > 0);
        CHECK(generated.find(std::string("| `") + r.text.id + "` |") != std::string::npos);
    }
}

TEST_CASE("a finding names another run by its label where a rule says so",
          "[report][catalogue]") {
    Finding f;
    f.say("lower than the baseline's ({baseline})").runs("baseline", {3}, "'openmp'");
    CHECK(f.text() == "lower than the baseline's ('openmp')");
    REQUIRE(f.field("baseline"));
    CHECK(f.field("baseline")->runs == std::vector<int>{3});  // the data keeps the number
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
