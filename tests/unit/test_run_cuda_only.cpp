// The one rule for runs that need CUDA: skipped where backend "auto" fell back to host, with the
// host backend's own reason; never skipped on a host backend that was asked for (its check
// refuses them) nor on the cuda backend; `list` counts them with the same rule.
#include <memory>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "run/cuda_only.hpp"
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

// Stands in for the cuda backend by name: nothing of it is called.
class NamedBackend final : public Backend {
  public:
    explicit NamedBackend(std::string name) : name_(std::move(name)) {}
    std::string name() const override { return name_; }
    Need memory_needed(const TransferSpec&, int, bool) const override { return {}; }
    void check(const TransferSpec&, int) const override {}
    std::unique_ptr<WorkerTransfer> prepare(const TransferSpec&, int) override { return nullptr; }
    nlohmann::json describe() const override { return {}; }

  private:
    std::string name_;
};

}  // namespace

TEST_CASE("on the host fallback each run needing CUDA is skipped with its one reason",
          "[run][cuda_only]") {
    const auto plan = mixed_plan();
    REQUIRE(plan.size() == 4);
    const auto host = make_host_backend();
    CHECK(cuda_only_reason(plan[0], *host, true).empty());
    CHECK(cuda_only_reason(plan[1], *host, true) ==
          "transfer.context = \"per-worker\" needs the cuda backend (a CUDA context per worker)");
    CHECK(cuda_only_reason(plan[2], *host, true) ==
          "transfer.host_memory = \"pinned\" needs the cuda backend (page-locked memory is "
          "allocated by CUDA)");
    // Pinned and per-worker: one reason, the same text the host backend refuses with.
    CHECK(cuda_only_reason(plan[3], *host, true) == host_needs_cuda(plan[3].settings.transfer));
    CHECK(cuda_only_reason(plan[3], *host, true) == cuda_only_reason(plan[2], *host, true));
}

TEST_CASE("a host backend that was asked for, and the cuda backend, skip nothing",
          "[run][cuda_only]") {
    const auto host = make_host_backend();
    const NamedBackend cuda("cuda");
    for (const Run& run : mixed_plan()) {
        INFO(run.position.label);
        CHECK(cuda_only_reason(run, *host, false).empty());  // the preflight refuses instead
        CHECK(cuda_only_reason(run, cuda, false).empty());
        CHECK(cuda_only_reason(run, cuda, true).empty());
    }
}

TEST_CASE("runs needing CUDA are counted by the same rule, all of them for backend cuda",
          "[run][cuda_only]") {
    const auto plan = mixed_plan();
    CHECK(runs_needing_cuda(plan, "auto") == 3);
    CHECK(runs_needing_cuda(plan, "host") == 3);
    CHECK(runs_needing_cuda(plan, "cuda") == 4);
    const auto pageable = expand_plan(parse_scenario("[[run]]\nlauncher = \"host\"\n", "p.toml"));
    CHECK(runs_needing_cuda(pageable, "auto") == 0);
    CHECK(runs_needing_cuda(pageable, "cuda") == 1);
}
