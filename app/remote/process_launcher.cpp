// Launcher "process": one worker process per worker, each `xferlab worker` of this very
// executable (remote/worker_processes.hpp), each with its own CUDA context.
#include "remote/process_launcher.hpp"

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "remote/sibling_executables.hpp"
#include "remote/worker_processes.hpp"

namespace xfer {
namespace {

class ProcessLauncher final : public Launcher {
  public:
    std::string name() const override { return "process"; }
    void launch(RunContext& ctx) override {
        std::vector<WorkerProcessPlan> plans;
        for (int i = 0; i < ctx.run.settings.threads.count; ++i)
            plans.push_back({.executable = self_executable(), .name = "xferlab", .workers = {i}});
        run_worker_processes(ctx, plans);
        ctx.notes.push_back(fmt::format(
            "{} worker processes (xferlab worker), each with its own {} context; {}",
            ctx.run.settings.threads.count, ctx.backend.name() == "cuda" ? "CUDA" : "backend",
            how_records_came_back(ctx)));
    }
};

}  // namespace

std::unique_ptr<Launcher> make_process_launcher() { return std::make_unique<ProcessLauncher>(); }

}  // namespace xfer
