#include "launch/copy_loop.hpp"

namespace xfer {

int copy_loop(Worker& worker, int count, const BetweenSpec& between, StopCondition stop,
              CopyGuard& guard) {
    const bool gaps = between.kind != BetweenKind::none;
    for (int k = 0; k < count; ++k) {
        if (k > 0 && gaps)
            guard.gap(worker, stop.deadline ? stop.deadline->clipped(between) : between);
        if (stop.requested()) return k;
        guard.copy(worker);
    }
    return count;
}

void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, StopCondition stop, CopyGuard& guard) {
    worker.enter_thread(launcher);
    // Aborted (another worker failed), or the run's deadline came before this worker's start.
    if (gate.arrive_and_wait(worker.index()) < 0) return;
    copy_loop(worker, worker.warmup() + worker.repetitions(), threads.between, stop, guard);
}

void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, StopCondition stop) {
    CopyGuard plain;
    run_worker_loop(worker, launcher, threads, gate, stop, plain);
}

}  // namespace xfer
