// The loop every native launcher runs on each worker thread. Python payloads write their own
// loop but call the same Worker::copy_once.
#include "launch/launcher.hpp"
#include "launch/thread_control.hpp"

namespace xfer {

void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, const std::atomic<bool>& stop) {
    worker.enter_thread(launcher);
    if (gate.arrive_and_wait(worker.index()) < 0) return;  // aborted: another worker failed
    const int total = worker.warmup() + worker.repetitions();
    for (int i = 0; i < total; ++i) {
        if (stop.load(std::memory_order_relaxed)) break;
        worker.copy_once();
        if (i + 1 < total) worker.pause_between(threads.between);
    }
}

}  // namespace xfer
