// Launcher "host": plain pthreads, so that every attribute a scenario sets is applied the way
// a C/C++ program would apply it (pthread_attr at creation, the rest from inside the thread).
#include "launch/copy_loop.hpp"
#include "launch/host_launcher.hpp"

#include "launch/pthread_workers.hpp"

namespace xfer {
namespace {

class HostLauncher final : public Launcher {
public:
    std::string name() const override { return "host"; }

    void launch(RunContext& ctx) override {
        run_pthread_workers(ctx, "xfer-host-", [](RunContext& c, Worker& worker) {
            run_worker_loop(worker, "host", c.run.settings.threads, c.gate,
                            {&c.stop, nullptr, c.deadline});
        });
    }
};

}  // namespace

std::unique_ptr<Launcher> make_host_launcher() { return std::make_unique<HostLauncher>(); }

}  // namespace xfer
