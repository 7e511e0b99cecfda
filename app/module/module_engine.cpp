#include "module/module_engine.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <map>

#include "util/process_id.hpp"

namespace xfer::pyapi {

namespace {

// The platform of `current_platform()`: CUDA unless a test build replaced it.
struct PlatformChoice {
    std::mutex mutex;
    CopyPlatform* replaced = nullptr;
    std::map<int, std::shared_ptr<ModuleEngine>> shared;  // by device
};

PlatformChoice& choice() {
    static PlatformChoice* c = new PlatformChoice;  // never destroyed: engines close at atexit
    return *c;
}

// set_engine_probe_maker's: under a lock of its own, since shared engines are made under
// PlatformChoice's.
struct ProbeChoice {
    std::mutex mutex;
    StatsProbeMaker maker;
};

ProbeChoice& probe_choice() {
    static ProbeChoice* c = new ProbeChoice;  // never destroyed, as PlatformChoice
    return *c;
}

StatsProbeMaker engine_probe_maker() {
    ProbeChoice& c = probe_choice();
    std::lock_guard lock(c.mutex);
    return c.maker;
}

CopyPlatform& platform_locked(const PlatformChoice& c) {
    if (c.replaced) return *c.replaced;
    if (CopyPlatform* cuda = cuda_copy_platform()) return *cuda;
    throw EngineError(
        "xferlab was built without the CUDA backend (no CUDA toolkit with CUPTI when it was "
        "configured): it has no device to copy to");
}

}  // namespace

ModuleEngine::ModuleEngine(CopyPlatform& platform, int device, const EngineOptions& options)
    : platform_(platform), device_(device), options_(options), pid_(process_id()) {
    if (const std::string why = platform_.unavailable(); !why.empty())
        throw EngineError("no CUDA device answers here: " + why);
    const int devices = platform_.device_count();
    if (device < 0 || device >= devices)
        throw EngineError(
            fmt::format("device {} does not exist: this machine has {} CUDA device{}{}", device,
                        devices, devices == 1 ? "" : "s",
                        devices > 0 ? fmt::format(" (0 to {})", devices - 1) : std::string()));
    // The home's probe (inside xferlab run: the DMAs join a payload's w.timed() block), else
    // one only when asked (measure=True).
    const StatsProbeMaker home = engine_probe_maker();
    try {
        MadeEngine made = make_engine(platform_, options, device, [&](int helpers) {
            probe_ = home ? home(helpers) : nullptr;
            if (!probe_ && options.measure) probe_ = std::make_shared<StatsProbe>(helpers);
            return probe_;
        });
        made.engine->start();
        engine_ = std::move(made.engine);
        resolved_ = std::move(made.resolved);
        resolved_.config.active_helpers =
            nullptr;  // holds the registry slot, which close() gives back
        registration_ = std::move(made.registration);
    } catch (const std::exception& e) {
        throw EngineError(e.what());
    }
}

ModuleEngine::~ModuleEngine() { close(); }

void ModuleEngine::enter() {
    std::lock_guard lock(mutex_);
    if (closed_)
        throw EngineError(fmt::format(
            "the engine of device {} is closed: make a new xferlab.Engine(device={}), or use "
            "xferlab.copy, whose shared engine stays open",
            device_, device_));
    if (process_id() != pid_)
        throw EngineError(fmt::format(
            "this engine was made in process {} and this is process {}, a fork() of it: CUDA "
            "cannot be used in a forked child; use multiprocessing's \"spawn\" start method",
            pid_, process_id()));
    ++in_flight_;
}

void ModuleEngine::leave() {
    std::lock_guard lock(mutex_);
    if (--in_flight_ == 0) idle_.notify_all();
}

void ModuleEngine::expect_copy() {
    // With wake = "arrival" no lock is taken on a call's way in.
    if (!wakes_on_call() || !last_staged_.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(mutex_);  // close() takes engine_ under it
    if (closed_ || !engine_ || process_id() != pid_) return;
    engine_->expect_copy();
}

void ModuleEngine::staged(std::byte* host, std::byte* device, uint64_t bytes, bool to_device,
                          bool page_locked, uintptr_t stream) {
    last_staged_.store(true, std::memory_order_relaxed);
    enter();
    try {
        if (stream) platform_.wait_stream(stream, device_);
        if (to_device)
            engine_->to_device(device, host, bytes, page_locked);
        else
            engine_->from_device(host, device, bytes, page_locked);
    } catch (const std::exception& e) {
        leave();
        throw EngineError(e.what());
    }
    leave();
}

void ModuleEngine::plain(std::byte* dst, const std::byte* src, uint64_t bytes, bool to_device,
                         uintptr_t stream) {
    last_staged_.store(false, std::memory_order_relaxed);
    enter();
    try {
        platform_.copy(dst, src, bytes, to_device, device_, stream);
    } catch (const std::exception& e) {
        leave();
        throw EngineError(e.what());
    }
    std::lock_guard lock(mutex_);
    ++plain_copies_;
    plain_bytes_ += bytes;
    if (--in_flight_ == 0) idle_.notify_all();
}

EngineStats ModuleEngine::stats() const {
    EngineStats s;
    std::lock_guard lock(mutex_);
    s.staged = engine_ ? engine_->totals() : closed_totals_;
    s.plain_copies = plain_copies_;
    s.plain_bytes = plain_bytes_;
    s.host_copies = host_copies_;
    if (probe_) s.measured = probe_->totals();
    s.last_call = last_call_;
    return s;
}

int ModuleEngine::active_helpers() const {
    std::lock_guard lock(mutex_);
    return engine_ ? engine_->active_helpers() : 0;
}

std::optional<EngineRegistryView> ModuleEngine::registry() const {
    std::shared_ptr<EngineRegistration> r;
    {
        std::lock_guard lock(mutex_);
        r = registration_;
    }
    if (!r) return std::nullopt;
    r->active();  // rescans when due (never in a forked child: the slot is the parent's)
    return EngineRegistryView{.path = r->path(), .why = r->why(), .share = r->summary()};
}

void ModuleEngine::close() {
    {
        std::unique_lock lock(mutex_);
        if (closed_) return;
        closed_ = true;
        idle_.wait(lock, [&] { return in_flight_ == 0; });
    }
    // In a forked child the helper threads do not exist: nothing to join, and the slot in the
    // engine registry is the parent's. Left as it is (a deliberate leak in the child).
    if (process_id() != pid_) {
        (void)engine_.release();  // its active_helpers hook keeps the registration alive too
        registration_.reset();
        return;
    }
    engine_->stop();
    // The engine goes, and with it its buffers and its registry slot: a closed engine no longer
    // takes a share of the CPUs from the live ones (Engine objects outlive their `with`).
    std::unique_ptr<StagingEngine> gone;
    {
        std::lock_guard lock(mutex_);
        closed_totals_ = engine_->totals();
        gone = std::move(engine_);
        registration_.reset();
    }
}

bool ModuleEngine::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

std::shared_ptr<ModuleEngine> shared_engine(int device) {
    PlatformChoice& c = choice();
    std::lock_guard lock(c.mutex);
    auto& engine = c.shared[device];
    if (!engine || engine->closed())
        engine = std::make_shared<ModuleEngine>(platform_locked(c), device, EngineOptions{});
    return engine;
}

namespace {

// The device whose shared engine staged the process's latest staged copy (-1: none yet).
std::atomic<int> g_last_staged_device{-1};

}  // namespace

void note_shared_staged(int device) {
    g_last_staged_device.store(device, std::memory_order_relaxed);
}

void expect_shared_copy() {
    const int device = g_last_staged_device.load(std::memory_order_relaxed);
    if (device < 0) return;
    std::shared_ptr<ModuleEngine> engine;
    {
        PlatformChoice& c = choice();
        std::lock_guard lock(c.mutex);
        const auto it = c.shared.find(device);
        if (it == c.shared.end() || !it->second) return;
        engine = it->second;
    }
    engine->expect_copy();  // nothing where its latest copy was plain
}

CopyPlatform& current_platform() {
    PlatformChoice& c = choice();
    std::lock_guard lock(c.mutex);
    return platform_locked(c);
}

void replace_platform(CopyPlatform* platform) {
    close_shared_engines();
    PlatformChoice& c = choice();
    std::lock_guard lock(c.mutex);
    c.replaced = platform;
}

void set_engine_probe_maker(StatsProbeMaker maker) {
    ProbeChoice& c = probe_choice();
    std::lock_guard lock(c.mutex);
    c.maker = std::move(maker);
}

void close_shared_engines() {
    std::map<int, std::shared_ptr<ModuleEngine>> engines;
    {
        PlatformChoice& c = choice();
        std::lock_guard lock(c.mutex);
        engines.swap(c.shared);
    }
    for (auto& [device, engine] : engines) engine->close();
}

}  // namespace xfer::pyapi
