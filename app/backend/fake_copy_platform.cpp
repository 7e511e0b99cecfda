// The fake copy platform of the Python module's tests: host memory registered as "device
// memory", engines on HostStagingDevice (backend/copy_platform.hpp).
#include <cstring>
#include <map>
#include <mutex>

#include "backend/copy_platform.hpp"
#include "backend/host_staging_device.hpp"

namespace xfer {

namespace {

struct Range {
    uint64_t bytes = 0;
    int device = -1;
    bool page_locked = false;
};

struct FakeState {
    std::mutex mutex;
    std::map<uintptr_t, Range> ranges;  // by start address
    const void* fail_at = nullptr;
    std::vector<uintptr_t> waited;
    std::string registry;  // fake_use_engine_registry
};

FakeState& fake() {
    static FakeState state;
    return state;
}

// The range holding `p`, or nullptr.
const Range* range_of(FakeState& s, uintptr_t p, uintptr_t* start) {
    auto it = s.ranges.upper_bound(p);
    if (it == s.ranges.begin()) return nullptr;
    --it;
    if (p >= it->first + it->second.bytes) return nullptr;
    *start = it->first;
    return &it->second;
}

// The helpers' count and chunk when "auto": small enough that tests cut copies into many chunks.
constexpr int kFakeThreads = 3;
constexpr uint64_t kFakeChunk = 64 << 10;

class FakeCopyPlatform final : public CopyPlatform {
  public:
    std::string name() const override { return "fake"; }
    std::string unavailable() override { return ""; }
    int device_count() override { return 2; }

    PointerPlace place(const void* p, uint64_t bytes) override {
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        const auto a = reinterpret_cast<uintptr_t>(p);
        uintptr_t start = 0, start_end = 0;
        const Range* r = range_of(s, a, &start);
        const Range* end = bytes > 0 ? range_of(s, a + bytes - 1, &start_end) : r;
        PointerPlace out;
        if (!r || r != end) return out;  // pageable, or straddling two ranges
        if (r->device >= 0) {
            out.kind = PointerPlace::Kind::device;
            out.device = r->device;
        } else if (r->page_locked) {
            out.kind = PointerPlace::Kind::page_locked;
        }
        return out;
    }

    void copy(void* dst, const void* src, uint64_t bytes, bool, int, uintptr_t) override {
        std::memcpy(dst, src, bytes);
    }

    void wait_stream(uintptr_t stream, int) override {
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        s.waited.push_back(stream);
    }

    MadeEngine make_engine(const EngineRequest& r) override {
        StagingConfig c;
        c.device = r.device;
        c.threads = r.threads > 0 ? r.threads : kFakeThreads;
        const EngineChunks chunks = engine_chunks(r, kFakeChunk, kFakeChunk, kFakeChunk);
        c.buffers = chunks.buffers;
        c.chunk = chunks.to_device;
        c.chunk_from_device = chunks.from_device;
        c.cpus = r.cpus.value_or(std::vector<int>{});
        c.dma_chunk = chunks.dma;
        c.taper = r.taper;
        c.ramp = r.ramp;
        c.linger_ns = r.linger_ns;
        auto device = std::make_unique<HostStagingDevice>(staging_layout(c));
        std::string registry;
        {
            FakeState& s = fake();
            std::lock_guard lock(s.mutex);
            device->fail_at = static_cast<const std::byte*>(s.fail_at);
            registry = s.registry;
        }
        MadeEngine out;
        if (!registry.empty()) {
            // As a CUDA engine claims its helpers (cuda/staging_device.cpp): "auto" ones share,
            // with the fake's auto count as both what one wants and the device's cap; a fixed
            // count is registered as fixed helpers.
            EngineClaim claim{.device = r.device,
                              .helpers = c.threads,
                              .automatic = r.threads == 0,
                              .cap = kFakeThreads,
                              .cpus = c.cpus};
            out.registration = join_engine_registry(std::move(claim), c.active_helpers, registry);
        }
        out.engine = std::make_unique<StagingEngine>(c, std::move(device));
        out.engine->start();
        out.note = "fake device " + std::to_string(r.device) + ": " + std::to_string(c.threads) +
                   " helper threads, chunks of " + std::to_string(c.chunk) + " bytes" +
                   (staging_shares_buffers(c)
                        ? ", DMAs of " + std::to_string(c.dma_chunk) + " bytes filled together"
                        : std::string());
        return out;
    }
};

}  // namespace

CopyPlatform& fake_copy_platform() {
    static FakeCopyPlatform platform;
    return platform;
}

void fake_register(const void* p, uint64_t bytes, int device, bool page_locked) {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    s.ranges[reinterpret_cast<uintptr_t>(p)] = Range{bytes, device, page_locked};
}

void fake_unregister(const void* p) {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    s.ranges.erase(reinterpret_cast<uintptr_t>(p));
}

void fake_fail_dma_at(const void* device_byte) {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    s.fail_at = device_byte;
}

void fake_use_engine_registry(const std::string& path) {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    s.registry = path;
}

std::vector<uintptr_t> fake_waited_streams() {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    return s.waited;
}

#if !XFER_HAVE_CUDA
CopyPlatform* cuda_copy_platform() { return nullptr; }
#endif

}  // namespace xfer
