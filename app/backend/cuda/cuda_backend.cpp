// The CUDA backend: which device each worker copies on, what a run needs, and device-side
// timing around a run (CUPTI tracing, CUDA events).
#include "backend/cuda/cuda_backend.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "backend/cuda/correlation_slot.hpp"
#include "backend/cuda/cuda_transfer.hpp"
#include "backend/cuda/cupti_join.hpp"
#include "backend/cuda/cupti_tracer.hpp"
#include "backend/cuda/host_memory.hpp"
#include "backend/staging_probe.hpp"
#include "backend/transfer_path.hpp"
#include "engine/auto_helpers.hpp"
#include "engine/copy_platform.hpp"
#include "engine/cuda/cuda_availability.hpp"
#include "engine/cuda/cuda_check.hpp"
#include "engine/cuda/topology.hpp"
#include "engine/engine_resolve.hpp"
#include "util/format.hpp"

namespace xfer::cuda {
namespace {

// Device memory kept free beyond what the buffers take: the context, the driver's staging
// buffers and the allocator's rounding.
constexpr uint64_t kDeviceReserve = uint64_t(512) << 20;

std::string size_text(uint64_t bytes) {
    char buf[48];
    if (bytes >= (uint64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(uint64_t(1) << 30));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(uint64_t(1) << 20));
    return buf;
}

// Which device-side timing a transfer gets, and why (for the run's notes).
struct TimingChoice {
    bool cupti = false;
    bool events = false;
    std::string note;
};

class CudaBackend final : public Backend {
  public:
    explicit CudaBackend(int device_count) : device_count_(device_count) {}

    std::string name() const override { return "cuda"; }
    Need memory_needed(const TransferSpec& t, int workers,
                       bool worker_processes = false) const override;
    RunHere can_run(const TransferSpec& t, int workers) const override;
    std::unique_ptr<WorkerTransfer> prepare(const TransferSpec& t, int worker) override;
    void begin_run(const TransferSpec& t) override;
    RunEnd end_run(std::vector<Record>& records) override;
    nlohmann::json describe() const override;

  private:
    // can_run's checks, each throwing std::runtime_error with its reason.
    void require(const TransferSpec& t, int workers) const;
    // The devices a run uses, in order: transfer.devices when given, else all of them.
    std::vector<int> device_set(const TransferSpec& t) const;
    int device_for(const TransferSpec& t, int worker) const;
    int peer_for(const TransferSpec& t, int device) const;
    // Device bytes each device needs for `workers` workers.
    std::map<int, uint64_t> device_needs(const TransferSpec& t, int workers) const;
    TimingChoice choose_timing(const TransferSpec& t) const;
    void enable_peer_access(int from, int to);
    void note_once(const std::string& note);
    std::shared_ptr<StagingEngine> staging_engine(const TransferSpec& t, int device);
    // Stops the run's engines; their chunks' CUPTI ids become their copies' tags in `trace`.
    void stop_staging(TraceResult* trace);
    void note_register_costs();
    // end_run's work: stop the tracer and the staging engines, join device times to `records`.
    void join_run(std::vector<Record>& records);
    void alias_timed_blocks(TraceResult& trace);

    int device_count_;
    // transfer.path = "staged": one engine per device, built by the run's first prepare() on the
    // device, started by begin_run, stopped and dropped by end_run.
    std::map<int, std::shared_ptr<StagingEngine>> engines_;
    std::map<int, std::shared_ptr<HarnessProbe>> probes_;  // each engine's: helpers, CUPTI ids
    // Their slots in the machine's engine registry (threads = "auto" shares the CPUs with the
    // engines of other processes): the run's notes say what each engine's share was.
    std::map<int, std::shared_ptr<EngineRegistration>> registrations_;
    std::vector<HelperThread> helper_threads_;
    std::vector<DeviceCopy> device_copies_;  // joined to payloads' w.timed() blocks, this run
    RegisterCosts register_costs_;           // transfer.path = "register", this run
    bool tracing_ = false;
    std::vector<std::string> notes_;
    std::set<std::string> noted_;
    std::set<std::pair<int, int>> peer_checked_;
};

std::vector<int> CudaBackend::device_set(const TransferSpec& t) const {
    std::vector<int> set;
    if (t.devices.empty()) {
        for (int d = 0; d < device_count_; ++d) set.push_back(d);
        return set;
    }
    for (int d : t.devices)
        if (std::find(set.begin(), set.end(), d) == set.end()) set.push_back(d);
    return set;
}

int CudaBackend::device_for(const TransferSpec& t, int worker) const {
    if (!t.devices.empty()) return t.devices[size_t(worker) % t.devices.size()];
    return device_count_ > 0 ? worker % device_count_ : 0;
}

// p2p destination: the next device of the run's device set after the worker's own.
int CudaBackend::peer_for(const TransferSpec& t, int device) const {
    std::vector<int> set = device_set(t);
    auto it = std::find(set.begin(), set.end(), device);
    if (it == set.end() || set.size() < 2) return -1;
    ++it;
    return it == set.end() ? set.front() : *it;
}

std::map<int, uint64_t> CudaBackend::device_needs(const TransferSpec& t, int workers) const {
    std::map<int, uint64_t> need;
    const uint64_t n = std::max<uint64_t>(t.bytes, 1);
    for (int w = 0; w < workers; ++w) {
        int d = device_for(t, w);
        switch (t.direction) {
            case Direction::h2d:
            case Direction::d2h:
                need[d] += n;
                break;
            case Direction::d2d:
                need[d] += 2 * n;
                break;
            case Direction::h2h:
                break;
            case Direction::p2p:
                need[d] += n;
                if (int p = peer_for(t, d); p >= 0) need[p] += n;
                break;
        }
    }
    return need;
}

Backend::Need CudaBackend::memory_needed(const TransferSpec& t, int workers,
                                         bool worker_processes) const {
    Need need;
    for (const auto& [dev, bytes] : device_needs(t, workers)) need.device_bytes += bytes;
    const uint64_t n = t.bytes;
    uint64_t host_per_worker = 0;
    switch (t.direction) {
        case Direction::h2d:
        case Direction::d2h:
            host_per_worker = n;
            break;
        case Direction::h2h:
            host_per_worker = 2 * n;
            break;
        case Direction::d2d:
        case Direction::p2p:
            break;
    }
    need.host_bytes = host_per_worker * uint64_t(std::max(workers, 0));
    // Staging chunk for filling and verifying device buffers (one at a time, main thread).
    if (t.direction != Direction::h2h) need.host_bytes += std::min<uint64_t>(n, uint64_t(64) << 20);
    // The staging engines' page-locked buffers, one engine per device and process: per device
    // when the workers are threads of this process, per worker when each is a process ("auto"
    // threads counted at their upper bound: an engine starts them all, buffers included, and
    // lets its share of the CPUs take work).
    if (t.path == CopyPath::staged) {
        const int threads =
            t.staging.threads > 0 ? t.staging.threads : kEngineDefaults.max_auto_threads;
        const uint64_t engines = worker_processes ? uint64_t(std::max(workers, 0))
                                                  : uint64_t(device_needs(t, workers).size());
        need.host_bytes += engines * engine_page_locked_bytes(t.staging, threads);
    }
    return need;
}

TimingChoice CudaBackend::choose_timing(const TransferSpec& t) const {
    TimingChoice c;
    const bool async = t.api == CopyApi::async;
    switch (t.timing) {
        case TimingMode::host:
            break;
        case TimingMode::events:
            c.events = async;
            if (!async)
                c.note =
                    "timing = \"events\": CUDA events are recorded on the worker's stream "
                    "around cudaMemcpyAsync only; api = \"sync\" copies have host times only";
            break;
        case TimingMode::cupti:
            c.cupti = true;
            break;
        case TimingMode::auto_: {
            const std::string& why = CuptiTracer::instance().setup();
            if (why.empty()) {
                c.cupti = true;
            } else {
                c.events = async;
                c.note = why + (async ? "; device times from CUDA events instead"
                                      : "; host times only (api = \"sync\" has no events)");
            }
            break;
        }
    }
    return c;
}

RunHere CudaBackend::can_run(const TransferSpec& t, int workers) const {
    try {
        require(t, workers);
    } catch (const std::exception& e) {
        return RunHere::refuse(e.what());
    }
    return RunHere::runs();
}

void CudaBackend::require(const TransferSpec& t, int workers) const {
    if (device_count_ <= 0) throw std::runtime_error("backend cuda: no CUDA device");
    for (int d : t.devices) {
        if (d < 0 || d >= device_count_)
            throw std::runtime_error(
                "transfer.devices lists device " + std::to_string(d) + " but this machine has " +
                std::to_string(device_count_) + " CUDA device" +
                (device_count_ == 1 ? " (0)" : "s (0.." + std::to_string(device_count_ - 1) + ")"));
    }
    if (t.direction == Direction::p2p && device_set(t).size() < 2) {
        throw std::runtime_error(
            "direction = \"p2p\" needs two devices, but " +
            (t.devices.empty()
                 ? "this machine has " + std::to_string(device_count_) + " CUDA device"
                 : std::string("transfer.devices names one device")));
    }
    if (t.context == ContextKind::per_worker && t.direction == Direction::p2p) {
        throw std::runtime_error(
            "transfer.context = " + quoted_value(ContextKind::per_worker) +
            " works on one device per worker (h2d, d2h, d2d, h2h); direction = \"p2p\" spans "
            "two devices: use context = " +
            quoted_value(ContextKind::primary));
    }
    check_transfer_path(t);
    if (t.timing == TimingMode::cupti) {
        const std::string& why = CuptiTracer::instance().setup();
        if (!why.empty()) throw std::runtime_error("timing = \"cupti\": " + why);
    }
    // Device memory preflight: every device against its own free memory, before any allocation.
    for (const auto& [dev, bytes] : device_needs(t, workers)) {
        size_t free = 0, total = 0;
        XFER_CUDA(dev, -1, cudaSetDevice(dev));
        XFER_CUDA(dev, -1, cudaMemGetInfo(&free, &total));
        if (bytes + kDeviceReserve > free) {
            throw std::runtime_error(
                "device " + std::to_string(dev) + " needs " + size_text(bytes) + " for " +
                std::to_string(workers) + " worker(s) of " + size_text(t.bytes) + " (" +
                to_string(t.direction) + ") plus " + size_text(kDeviceReserve) +
                " headroom, but has " + size_text(free) + " free of " + size_text(total) +
                ": lower transfer.bytes or threads.count");
        }
    }
}

void CudaBackend::note_once(const std::string& note) {
    if (!note.empty() && noted_.insert(note).second) notes_.push_back(note);
}

// Peer access lets `from` reach `to`'s memory directly (NVLink or PCIe P2P). Without it
// cudaMemcpyPeer still works, staged through host memory; the run's notes say which it was.
void CudaBackend::enable_peer_access(int from, int to) {
    if (!peer_checked_.insert({from, to}).second) return;
    int can = 0;
    XFER_CUDA(from, -1, cudaDeviceCanAccessPeer(&can, from, to));
    if (!can) {
        note_once("p2p " + std::to_string(from) + " -> " + std::to_string(to) +
                  ": cudaDeviceCanAccessPeer = 0 (no NVLink or PCIe peer path between them, or "
                  "the platform forbids it); cudaMemcpyPeer stages the copies through host "
                  "memory");
        return;
    }
    XFER_CUDA(from, -1, cudaSetDevice(from));
    cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
    } else if (err != cudaSuccess) {
        throw_cuda_error(err, "cudaDeviceEnablePeerAccess", from, -1);
    }
    note_once("p2p " + std::to_string(from) + " -> " + std::to_string(to) +
              ": peer access enabled (direct copies)");
}

std::unique_ptr<WorkerTransfer> CudaBackend::prepare(const TransferSpec& t, int worker) {
    TransferPlan plan;
    plan.spec = t;
    plan.worker = worker;
    plan.device = device_for(t, worker);
    if (plan.device < 0 || plan.device >= device_count_)
        throw std::runtime_error("worker " + std::to_string(worker) + ": device " +
                                 std::to_string(plan.device) + " does not exist");
    if (t.direction == Direction::p2p) {
        plan.peer = peer_for(t, plan.device);
        if (plan.peer < 0)
            throw std::runtime_error("worker " + std::to_string(worker) +
                                     ": p2p needs a second device");
        enable_peer_access(plan.device, plan.peer);
        enable_peer_access(plan.peer, plan.device);
    }
    TimingChoice timing = choose_timing(t);
    if (t.timing == TimingMode::cupti && !CuptiTracer::instance().usable())
        throw std::runtime_error("timing = \"cupti\": " + CuptiTracer::instance().setup());
    note_once(timing.note);
    plan.cupti = timing.cupti;
    plan.events = timing.events && t.path != CopyPath::staged;
    if (t.path == CopyPath::staged) {
        plan.staging = staging_engine(t, plan.device);
        if (timing.events)
            note_once("path = " + quoted_value(CopyPath::staged) +
                      ": the helpers' chunks carry no CUDA events; device times come from CUPTI "
                      "only");
    }
    if (t.path == CopyPath::register_) plan.register_costs = &register_costs_;
    return make_cuda_transfer(plan);
}

std::shared_ptr<StagingEngine> CudaBackend::staging_engine(const TransferSpec& t, int device) {
    auto& engine = engines_[device];
    if (engine) return engine;
    std::shared_ptr<HarnessProbe> probe;
    MadeEngine made = make_engine(*cuda_copy_platform(), t.staging, device, [&](int helpers) {
        probe = std::make_shared<HarnessProbe>(
            helpers, CorrelatingProbe::Sources{.correlation = &correlation::take,
                                               .caller_tag = &correlation::staged_tag,
                                               .hand_over = {}});
        return probe;
    });
    engine = std::move(made.engine);
    probes_[device] = probe;
    registrations_[device] = made.registration;
    note_once(made.resolved.note);
    return engine;
}

void CudaBackend::stop_staging(TraceResult* trace) {
    std::unordered_map<uint32_t, uint32_t> tag_of;
    uint64_t chunks = 0;
    for (auto& [device, engine] : engines_) {
        engine->stop();
        const HarnessProbe& probe = *probes_[device];
        chunks += probe.totals().work.chunks;
        for (auto& info : probe.helper_threads()) {
            info.thread.launcher = "staging (device " + std::to_string(device) + ")";
            helper_threads_.push_back(std::move(info));
        }
        for (const auto& [id, tag] : probe.correlations()) tag_of[id] = tag;
    }
    engines_.clear();
    probes_.clear();
    for (auto& [device, registration] : registrations_)
        if (registration && registration->claim().automatic)
            note_once(fmt::format("staging on device {}: {}", device, registration->describe()));
    registrations_.clear();
    if (!trace || chunks == 0) return;
    const uint64_t matched = apply_correlation_aliases(*trace, tag_of);
    if (matched < chunks)
        note_once(fmt::format(
            "staging: of {} chunk copies, {} carried a CUPTI correlation id and {} matched a "
            "CUPTI memcpy record: copies whose chunks are missing keep host times only",
            chunks, tag_of.size(), matched));
}

void CudaBackend::note_register_costs() {
    std::vector<int64_t> ns;
    uint64_t bytes = 0;
    {
        std::lock_guard lock(register_costs_.mutex);
        ns.swap(register_costs_.ns);
        bytes = register_costs_.bytes;
    }
    if (ns.empty()) return;
    std::sort(ns.begin(), ns.end());
    const int64_t median = ns[ns.size() / 2];
    note_once(fmt::format(
        "path = {}: cudaHostRegister of each {} buffer took {} median (min {}, max {}; "
        "{} buffer{}, {:.1f} GB/s), before the timed copies; unregistered after the run",
        quoted_value(CopyPath::register_), format_size(bytes), format_duration_ns(median),
        format_duration_ns(ns.front()), format_duration_ns(ns.back()), ns.size(),
        ns.size() == 1 ? "" : "s", double(bytes) / double(std::max<int64_t>(median, 1))));
}

void CudaBackend::begin_run(const TransferSpec& t) {
    tracing_ = false;
    helper_threads_.clear();
    if (choose_timing(t).cupti) {
        CuptiTracer::instance().start();
        tracing_ = true;
    }
    // Helper threads start before the workers (never inside a timed copy) and after tracing
    // began, so that their threads' CUDA calls are traced from their first one on.
    for (auto& [device, engine] : engines_) engine->start();
}

Backend::RunEnd CudaBackend::end_run(std::vector<Record>& records) {
    RunEnd out;
    try {
        join_run(records);
    } catch (const std::exception& e) {
        out.failure = e.what();
    }
    out.notes.swap(notes_);
    noted_.clear();
    peer_checked_.clear();  // peer access stays enabled; the next run's notes say so again
    out.helper_threads.swap(helper_threads_);
    out.device_copies.swap(device_copies_);
    return out;
}

void CudaBackend::join_run(std::vector<Record>& records) {
    note_register_costs();
    if (!tracing_) {
        stop_staging(nullptr);
        return;
    }
    tracing_ = false;
    TraceResult trace = CuptiTracer::instance().stop();
    stop_staging(&trace);
    alias_timed_blocks(trace);
    JoinReport report = join_device_times(records, trace, int(getpid()));
    for (auto& note : join_notes(report, trace)) note_once(note);
    TimedBlockJoin timed = join_timed_blocks(records, trace, int(getpid()), report.offset_ns);
    if (timed.blocks > 0)
        note_once(
            fmt::format("CUPTI: {} of {} timed blocks issued device copies ({} copies "
                        "joined)",
                        timed.blocks_joined, timed.blocks, timed.copies.size()));
    device_copies_ = std::move(timed.copies);
}

// The activity records of a timed block's calls carry the calls' own ids: give them the block's
// tag, as stop_staging does for chunks.
void CudaBackend::alias_timed_blocks(TraceResult& trace) {
    std::unordered_map<uint32_t, uint32_t> tag_of;
    for (const auto& [id, tag] : CuptiTracer::take_capture_aliases()) tag_of[id] = tag;
    if (!tag_of.empty()) apply_correlation_aliases(trace, tag_of);
}

nlohmann::json CudaBackend::describe() const {
    nlohmann::json out = topology_json();
    out["backend"] = "cuda";
    out["available"] = true;
    out["summary"] = availability().reason;
    CuptiTracer& tracer = CuptiTracer::instance();
    const std::string& why = tracer.setup();
    out["cupti"] = {
        {"available", why.empty()},
        {"reason", why},
        {"timestamps", tracer.timestamp_callback()
                           ? "CLOCK_MONOTONIC through cuptiActivityRegisterTimestampCallback"
                           : "CUPTI's clock, converted by an offset sampled around each run"},
    };
    return out;
}

}  // namespace

BackendAvailability availability() {
    const CudaAvailability a = cuda_availability();
    return {.name = "cuda", .available = a.available, .reason = a.reason};
}

std::unique_ptr<Backend> make_backend() {
    BackendAvailability a = availability();
    if (!a.available) throw BackendUnavailable("cuda", a.reason);
    int count = 0;
    XFER_CUDA(-1, -1, cudaGetDeviceCount(&count));
    return std::make_unique<CudaBackend>(count);
}

}  // namespace xfer::cuda
