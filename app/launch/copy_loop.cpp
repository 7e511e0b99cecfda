#include "launch/copy_loop.hpp"

namespace xfer {

int copy_loop(Worker& worker, int count, const BetweenSpec& between, StopCondition stop,
              CopyGuard& guard) {
    const bool gaps = between.kind != BetweenKind::none;
    for (int k = 0; k < count; ++k) {
        if (k > 0 && gaps) guard.gap(worker, between);
        if (stop.requested()) return k;
        guard.copy(worker);
    }
    return count;
}

void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, const std::atomic<bool>& stop, CopyGuard& guard) {
    worker.enter_thread(launcher);
    if (gate.arrive_and_wait(worker.index()) < 0) return;  // aborted: another worker failed
    copy_loop(worker, worker.warmup() + worker.repetitions(), threads.between, {&stop, nullptr},
              guard);
}

void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, const std::atomic<bool>& stop) {
    CopyGuard plain;
    run_worker_loop(worker, launcher, threads, gate, stop, plain);
}

}  // namespace xfer
