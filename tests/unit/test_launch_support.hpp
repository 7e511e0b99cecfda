#pragma once
// A run on the host backend with tiny buffers, launched the way the plan runner does it, for
// the launch tests.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "launch/host_launcher.hpp"
#include "launch/launcher.hpp"
#include "launch/openmp_launcher.hpp"
#include "launch/worker.hpp"

namespace xfer::test {

struct LaunchHarness {
    Run run;
    std::unique_ptr<Backend> backend = make_host_backend();
    std::vector<std::unique_ptr<Worker>> workers;
    std::atomic<bool> stop{false};
    std::vector<std::string> errors;
    std::vector<std::string> notes;

    explicit LaunchHarness(int threads, int repetitions = 3, int warmup = 1,
                           uint64_t bytes = 64 << 10) {
        run.position.index = 2;
        run.settings.threads.count = threads;
        run.settings.transfer.bytes = bytes;
        run.settings.transfer.repetitions = repetitions;
        run.settings.transfer.warmup = warmup;
    }

    // Buffers from the backend (or from `make_transfer` when given), then the launcher.
    template <typename MakeTransfer>
    void launch_with(const std::string& launcher, MakeTransfer make_transfer) {
        workers.clear();
        for (int i = 0; i < run.settings.threads.count; ++i)
            workers.push_back(std::make_unique<Worker>(run.position.index, i, make_transfer(i),
                                                       run.settings.transfer.repetitions,
                                                       run.settings.transfer.warmup));
        StartGate gate(run.settings.threads.count, run.settings.threads.start);
        RunContext ctx{.run = run, .backend = *backend, .workers = workers, .gate = gate, .stop = stop};
        auto l = launcher == "host" ? make_host_launcher() : make_openmp_launcher();
        l->launch(ctx);
        errors = ctx.errors;
        notes = ctx.notes;
    }

    void launch(const std::string& launcher) {
        launch_with(launcher, [&](int i) {
            auto t = backend->prepare(run.settings.transfer, i);
            t->poison_destination();
            return t;
        });
    }

    const ThreadInfo& info(int worker) const { return workers[size_t(worker)]->thread_info(); }
};

}  // namespace xfer::test
