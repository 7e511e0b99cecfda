// report/render/trace_reporter.cpp past output.trace_copies: a run's copies are sampled evenly, and
// the trace's metadata and the run's track name say so; within the limit every copy is shown.
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "report/explain/analyze.hpp"
#include "report/render/reporter.hpp"
#include "support/catch.hpp"
#include "test_report_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
using namespace xfer::testing;

namespace {

// Run 0: 1 worker, 10 copies; run 1: 3 copies.
Results two_runs() {
    Results res;
    RunResult a = run(0, "host", 1);
    back_to_back(a, 0, kS, std::vector<int64_t>(10, 1000));
    RunResult b = run(1, "host", 1);
    back_to_back(b, 0, 2 * kS, std::vector<int64_t>(3, 1000));
    res.runs = {a, b};
    return res;
}

json trace_of(const Results& res, size_t limit) {
    std::ostringstream out;
    make_reporter("trace", ReportDetail::full, ReportLimits{limit})->write(res, analyze(res), out);
    return json::parse(out.str());
}

// The repetitions of run `index`'s host copies in the trace, in order.
std::vector<int> shown(const json& trace, int index) {
    std::vector<int> reps;
    for (const auto& e : trace.at("traceEvents"))
        if (e.at("ph") == "X" && e.at("pid") == index + 1 && e.at("cat") == "host")
            reps.push_back(e.at("args").at("repetition").get<int>());
    return reps;
}

std::string process_name(const json& trace, int index) {
    for (const auto& e : trace.at("traceEvents"))
        if (e.at("ph") == "M" && e.at("name") == "process_name" && e.at("pid") == index + 1)
            return e.at("args").at("name").get<std::string>();
    return "";
}

}  // namespace

TEST_CASE("trace.json samples every k-th copy of a run past the limit and says so",
          "[report][trace]") {
    const json trace = trace_of(two_runs(), 4);
    CHECK(shown(trace, 0) == std::vector<int>{0, 3, 6, 9});  // k = ceil(10 / 4) = 3
    CHECK(shown(trace, 1) == std::vector<int>{0, 1, 2});     // within the limit: all
    CHECK(process_name(trace, 0) == "run 0: host threads.count=1 (sampled: 1 in 3 of 10 copies)");
    CHECK(process_name(trace, 1) == "run 1: host threads.count=1");
    const json& other = trace.at("otherData");
    CHECK(other.at("copies_per_run_limit") == 4);
    CHECK(other.at("sampled") ==
          json::parse(R"([{"run": 0, "copies": 10, "shown": 4, "every": 3}])"));
}

TEST_CASE("trace.json with limit 0 shows every copy", "[report][trace]") {
    const json trace = trace_of(two_runs(), 0);
    CHECK(shown(trace, 0).size() == 10);
    CHECK(trace.at("otherData").at("sampled").empty());
}
