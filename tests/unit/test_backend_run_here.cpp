// "Can this run run here?", as each backend answers it for itself (Backend::can_run): the host
// backend standing in for cuda (backend "auto" without CUDA) skips each run needing CUDA with
// its one reason; a host backend that was asked for refuses the same runs, with the same reason
// and a hint; `list` counts them by the same rule.
#include <memory>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "cli/cmd_list.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

// A [sweep] over the memory kind and two [[run]]s, one of them per-worker: runs 0 pageable
// primary, 1 pageable per-worker, 2 pinned primary, 3 pinned per-worker.
const char* const kMixed = R"([transfer]
bytes = "64KiB"
[[run]]
launcher = "host"
[[run]]
launcher = "host"
transfer.context = "per-worker"
[sweep]
"transfer.host_memory" = ["pageable", "pinned"]
)";

std::vector<Run> mixed_plan() { return expand_plan(parse_scenario(kMixed, "mixed.toml")); }

RunHere on(const Backend& backend, const Run& run) {
    return backend.can_run(run.settings.transfer, run.settings.threads.count);
}

}  // namespace

TEST_CASE("on the host standing in for cuda each run needing CUDA is skipped with its one reason",
          "[backend][run_here]") {
    const auto plan = mixed_plan();
    REQUIRE(plan.size() == 4);
    const auto host = make_host_backend(/*standing_in=*/true);
    CHECK(on(*host, plan[0]).verdict == RunHere::Verdict::runs);
    CHECK(on(*host, plan[0]).reason.empty());
    CHECK(on(*host, plan[1]).skipped());
    CHECK(on(*host, plan[1]).reason ==
          "transfer.context = \"per-worker\" needs the cuda backend (a CUDA context per worker)");
    CHECK(on(*host, plan[2]).skipped());
    CHECK(on(*host, plan[2]).reason ==
          "transfer.host_memory = \"pinned\" needs the cuda backend (page-locked memory is "
          "allocated by CUDA)");
    // Pinned and per-worker: one reason.
    CHECK(on(*host, plan[3]).reason == host_needs_cuda(plan[3].settings.transfer));
    CHECK(on(*host, plan[3]).reason == on(*host, plan[2]).reason);
}

TEST_CASE("a host backend that was asked for refuses what needs CUDA, saying how to run it",
          "[backend][run_here]") {
    const auto plan = mixed_plan();
    const auto host = make_host_backend();
    CHECK(on(*host, plan[0]).verdict == RunHere::Verdict::runs);
    for (size_t i = 1; i < plan.size(); ++i) {
        INFO(plan[i].position.label);
        const RunHere here = on(*host, plan[i]);
        CHECK(here.refused());
        CHECK(here.reason == host_needs_cuda(plan[i].settings.transfer) +
                                 "; this run's backend is host (use backend = \"cuda\", or "
                                 "\"auto\" to skip such runs where CUDA is unavailable)");
    }
}

TEST_CASE("runs needing CUDA are counted by the same rule, all of them for backend cuda",
          "[backend][run_here]") {
    const auto plan = mixed_plan();
    CHECK(runs_needing_cuda(plan, "auto") == 3);
    CHECK(runs_needing_cuda(plan, "host") == 3);
    CHECK(runs_needing_cuda(plan, "cuda") == 4);
    const auto pageable = expand_plan(parse_scenario("[[run]]\nlauncher = \"host\"\n", "p.toml"));
    CHECK(runs_needing_cuda(pageable, "auto") == 0);
    CHECK(runs_needing_cuda(pageable, "cuda") == 1);
}
