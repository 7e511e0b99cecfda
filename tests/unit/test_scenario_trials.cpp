// scenario.trials, order, seed and baseline: the plan they expand to and their errors.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/scenario_errors.hpp"

using namespace xfer;

using xfer::test::errors_of;

namespace {

const char* kTwoRuns = R"([scenario]
name = "t"
{}
[[run]]
launcher = "host"
[[run]]
launcher = "openmp"
[sweep]
"threads.count" = [1, 2]
)";

std::string with(const std::string& scenario_keys) {
    std::string text = kTwoRuns;
    return text.replace(text.find("{}"), 2, scenario_keys);
}

// "label/trial" of each run in plan order.
std::vector<std::string> order_of(const std::vector<Run>& plan) {
    std::vector<std::string> out;
    for (const Run& r : plan)
        out.push_back(r.position.label + "/" + std::to_string(r.position.trial));
    return out;
}

}  // namespace

TEST_CASE("trials interleave by default: every run once per round", "[scenario][trials]") {
    const std::vector<Run> plan = expand_plan(parse_scenario(with("trials = 2"), "t.toml", {}));
    CHECK(order_of(plan) ==
          std::vector<std::string>{"host threads.count=1/1", "openmp threads.count=1/1",
                                   "host threads.count=2/1", "openmp threads.count=2/1",
                                   "host threads.count=1/2", "openmp threads.count=1/2",
                                   "host threads.count=2/2", "openmp threads.count=2/2"});
    for (size_t i = 0; i < plan.size(); ++i) CHECK(plan[i].position.index == int(i));
    CHECK(plan[5].position.slot == 1);
    CHECK(plan[5].position.base_label == "openmp");
}

TEST_CASE("grouped trials run each run's trials in a row", "[scenario][trials]") {
    const auto plan =
        expand_plan(parse_scenario(with("trials = 2\norder = \"grouped\""), "t.toml", {}));
    CHECK(order_of(plan) ==
          std::vector<std::string>{"host threads.count=1/1", "host threads.count=1/2",
                                   "openmp threads.count=1/1", "openmp threads.count=1/2",
                                   "host threads.count=2/1", "host threads.count=2/2",
                                   "openmp threads.count=2/1", "openmp threads.count=2/2"});
}

TEST_CASE("a shuffled order follows its seed, and a chosen seed is recorded",
          "[scenario][trials]") {
    const auto text = with("trials = 4\norder = \"shuffled\"\nseed = 7");
    const auto a = order_of(expand_plan(parse_scenario(text, "t.toml", {})));
    CHECK(a == order_of(expand_plan(parse_scenario(text, "t.toml", {}))));
    CHECK(a != order_of(expand_plan(parse_scenario(with("trials = 4"), "t.toml", {}))));
    // Each round holds every run once.
    for (size_t round = 0; round < 4; ++round) {
        std::vector<std::string> r(a.begin() + long(round * 4), a.begin() + long(round * 4 + 4));
        for (const auto& x : r) CHECK(x.back() == char('1' + round));
    }
    const Scenario chosen = parse_scenario(with("order = \"shuffled\""), "t.toml", {});
    CHECK(chosen.resolved["scenario"].contains("seed"));
    CHECK(chosen.resolved["scenario"]["seed"] == chosen.seed);
    CHECK_FALSE(parse_scenario(with(""), "t.toml", {}).resolved["scenario"].contains("seed"));
}

TEST_CASE("scenario.trials (--trials) is checked, and the plan size counts trials",
          "[scenario][trials]") {
    const auto plan = expand_plan(parse_scenario(with(""), "t.toml", {"scenario.trials=3"}));
    CHECK(plan.size() == 12);
    const auto errors = errors_of(with("trials = 0"));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].key == "scenario.trials");
    CHECK(errors[0].line == 3);
    CHECK(errors[0].message == "expected an integer from 1 to 1000; got an integer (0)");
    const auto big = errors_of(with("trials = 1000"), {"threads.count=1"});
    CHECK(big.empty());
    const auto order = errors_of(with("order = \"random\""));
    REQUIRE(order.size() == 1);
    CHECK(order[0].message.find("interleaved") != std::string::npos);
}

TEST_CASE("scenario.baseline names a [[run]] label, another is an error listing them",
          "[scenario][trials]") {
    CHECK(errors_of(with("baseline = \"openmp\"")).empty());
    const auto errors = errors_of(with("baseline = \"openm\""));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].key == "scenario.baseline");
    CHECK(errors[0].line == 3);
    CHECK(errors[0].column == 12);
    CHECK(errors[0].message ==
          "no [[run]] has the label \"openm\" (did you mean 'openmp'?); the [[run]] labels are "
          "\"host\", \"openmp\"");
}
