#pragma once
// Shared by the GPU tests: a run of N workers on the CUDA backend driven through the same
// Worker / run_worker_loop every native launcher uses, so the tests measure the real copy path.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "launch/copy_loop.hpp"
#include "launch/launcher.hpp"
#include "launch/start_gate.hpp"
#include "launch/worker.hpp"
#include "scenario/scenario.hpp"

namespace xfer::gpu_test {

// How far a CUPTI device interval may stick out of its host call: clock conversion error only
// (CUPTI interpolates GPU timestamps onto the host clock). A wrong clock base is off by seconds.
constexpr int64_t kClockToleranceNs = 200'000;
constexpr uint64_t kSmall = uint64_t(8) << 20;

inline Backend& cuda_backend() {
    static std::unique_ptr<Backend> backend = make_backend("cuda");
    return *backend;
}

inline int device_count() { return int(cuda_backend().describe()["device_count"].get<int>()); }

inline TransferSpec spec(Direction d, HostMemoryKind m, CopyApi api, StreamKind s,
                         TimingMode timing = TimingMode::cupti) {
    TransferSpec t;
    t.direction = d;
    t.bytes = kSmall;
    t.host_memory.kind = m;
    t.host_memory.numa_node = m == HostMemoryKind::numa ? 0 : -1;
    t.first_touch = FirstTouch::worker;
    t.api = api;
    t.stream = s;
    t.timing = timing;
    t.repetitions = 2;
    t.warmup = 1;
    t.verify = true;
    return t;
}

struct RunOutcome {
    std::vector<Record> records;
    std::vector<std::string> errors;  // exceptions thrown on worker threads
    std::vector<std::string> notes;   // Backend::end_run's notes
    std::vector<int64_t> mismatch;    // verify() per worker: -1 when every byte arrived
    std::vector<int> devices;         // WorkerTransfer::device() per worker
};

inline std::string describe(const TransferSpec& t) {
    return to_string(t.direction) + " " + to_string(t.host_memory) + " api=" + to_string(t.api) +
           " stream=" + to_string(t.stream) + " timing=" + to_string(t.timing) +
           " first_touch=" + to_string(t.first_touch);
}

// Why `backend` refuses `t` with `workers` workers (Backend::can_run); "" when it does not refuse
// (it runs it, or skips it).
inline std::string refused_reason(const Backend& backend, const TransferSpec& t, int workers) {
    const RunHere here = backend.can_run(t, workers);
    return here.refused() ? here.reason : std::string();
}

// can_run, prepare + poison (main thread), begin_run, workers (attach on their own thread, start
// barrier, warmup + repetitions copies), end_run, verify. A run the backend does not run here
// throws std::runtime_error with its reason; exceptions from prepare propagate.
inline RunOutcome run_copies(Backend& backend, const TransferSpec& t, int workers) {
    RunOutcome out;
    if (const RunHere here = backend.can_run(t, workers); here.verdict != RunHere::Verdict::runs)
        throw std::runtime_error(here.reason);
    std::vector<std::unique_ptr<Worker>> ws;
    for (int i = 0; i < workers; ++i) {
        auto transfer = backend.prepare(t, i);
        transfer->poison_destination();
        out.devices.push_back(transfer->device());
        ws.push_back(std::make_unique<Worker>(0, i, std::move(transfer), t.repetitions, t.warmup));
    }
    StartGate gate(workers, StartSpec{});
    std::atomic<bool> stop{false};
    ThreadSpec threads;
    threads.count = workers;
    std::mutex mutex;
    backend.begin_run(t);
    std::vector<std::thread> pool;
    for (int i = 0; i < workers; ++i) {
        pool.emplace_back([&, i] {
            try {
                run_worker_loop(*ws[size_t(i)], "host", threads, gate, {&stop, nullptr});
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> lock(mutex);
                out.errors.push_back("worker " + std::to_string(i) + ": " + e.what());
                gate.abort();
            }
        });
    }
    for (auto& th : pool) th.join();
    for (auto& w : ws)
        out.records.insert(out.records.end(), w->records().begin(), w->records().end());
    Backend::RunEnd end = backend.end_run(out.records);
    if (!end.failure.empty()) throw std::runtime_error("end_run: " + end.failure);
    out.notes = std::move(end.notes);
    if (t.verify)
        for (auto& w : ws)
            out.mismatch.push_back(w->copies_done() > 0 ? w->transfer().verify() : -2);
    return out;
}

// The message of what `f` throws ("" when it does not throw): Catch2 2 and 3 name their
// string matchers differently, so tests match text with find().
template <class F>
std::string thrown_message(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

inline std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

// Largest amount by which device intervals stick out of their host calls (ns; <= 0: inside).
inline int64_t worst_overhang(const std::vector<Record>& records) {
    int64_t worst = INT64_MIN;
    for (const auto& r : records) {
        if (!r.has_device_time()) continue;
        worst =
            std::max({worst, r.host_start_ns - r.device_start_ns, r.device_end_ns - r.host_end_ns});
    }
    return worst;
}

}  // namespace xfer::gpu_test
