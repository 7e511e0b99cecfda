// report/render/results_compare.cpp: what `xferlab compare` says about a pair whose runs differ in
// settings (issue #31): the host, the thread count, the backend used and every scaling-key key,
// or, in results from before scaling keys, what every run records.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/results_compare.hpp"
#include "support/catch.hpp"
#include "test_report_fixtures.hpp"
#include "util/format.hpp"

using namespace xfer;
using namespace xfer::testing;

namespace {

// "setting: a | b" for each difference of the only pair of `a` against `b`.
std::vector<std::string> pair_differences(const Results& a, const Results& b) {
    const ResultsComparison c = compare_results(a, analyze(a), b, analyze(b));
    REQUIRE(c.pairs.size() == 1);
    CHECK(c.differing_pairs == (c.pairs[0].differences.empty() ? 0u : 1u));
    std::vector<std::string> out;
    for (const auto& d : c.pairs[0].differences)
        out.push_back(d.setting + ": " + d.a + " | " + d.b);
    return out;
}

// One run labelled "host" of `threads` workers, two copies each.
RunResult compared_run(int threads, const std::string& scaling_key = "") {
    RunResult r = run(0, "host", threads, scaling_key);
    r.position.label = "host";
    for (int w = 0; w < threads; ++w) back_to_back(r, w, kS, {kMs, kMs});
    return r;
}

// A host of that name with the CPU model "cpu".
HostFacts host_named(const std::string& name) {
    HostFacts h;
    h.hostname = name;
    h.cpu_model = "cpu";
    return h;
}

}  // namespace

TEST_CASE("compare: runs alike in every setting differ in nothing", "[report][compare]") {
    Results a;
    a.host = host_named("gpu-1");
    a.runs = {compared_run(2, R"({"backend":"auto","transfer":{"bytes":1}})")};
    CHECK(pair_differences(a, a).empty());
}

TEST_CASE("compare: without scaling keys a pair differs in host, backend used, size, direction",
          "[report][compare]") {
    Results a, b;
    a.host = host_named("gpu-1");
    b.host = host_named("gpu-2");
    a.runs = {compared_run(1)};
    RunResult other = compared_run(1);
    other.backend_used = "cuda";
    other.settings.transfer.bytes = kGB / 4;
    other.settings.transfer.direction = Direction::d2h;
    b.runs = {other};
    CHECK(
        pair_differences(a, b) ==
        std::vector<std::string>{"host.hostname: gpu-1 | gpu-2", "backend used: host | cuda",
                                 "transfer.bytes: " + fmtx::size(kGB) + " | " + fmtx::size(kGB / 4),
                                 "transfer.direction: h2d | d2h"});
    const ResultsComparison c = compare_results(a, analyze(a), b, analyze(b));
    CHECK(differences_text(c.pairs[0]) ==
          "host.hostname gpu-1 in A, gpu-2 in B; backend used host in A, cuda in B; "
          "transfer.bytes " +
              fmtx::size(kGB) + " in A, " + fmtx::size(kGB / 4) +
              " in B; transfer.direction h2d in A, d2h in B");
}

TEST_CASE("compare: with scaling keys every key that differs, a size as it was written",
          "[report][compare]") {
    Results a, b;  // no host recorded on either side: not a difference
    a.runs = {compared_run(
        1,
        R"({"backend":"auto","transfer":{"bytes":1073741824,"bytes_text":"1 GiB","api":"sync"}})")};
    b.runs = {compared_run(
        4,
        R"({"backend":"cuda","transfer":{"bytes":2147483648,"bytes_text":"2 GiB","api":"sync"}})")};
    CHECK(pair_differences(a, b) == std::vector<std::string>{"threads.count: 1 | 4",
                                                             "backend: auto | cuda",
                                                             "transfer.bytes: 1 GiB | 2 GiB"});
    // A key on one side only.
    b.runs = {compared_run(1, R"({"backend":"auto","transfer":{"bytes":1073741824,)"
                              R"("bytes_text":"1 GiB","api":"sync","context":"per-worker"}})")};
    CHECK(pair_differences(a, b) ==
          std::vector<std::string>{"transfer.context: (none) | per-worker"});
}
