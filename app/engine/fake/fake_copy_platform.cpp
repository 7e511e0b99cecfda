#include "engine/fake/fake_copy_platform.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "engine/fake/host_staging_device.hpp"

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
    std::string registry;          // fake_use_engine_registry
    std::set<int> reads_pageable;  // fake_set_pageable_access
};

FakeState& fake() {
    static FakeState state;
    return state;
}

// The range holding `p`, or nullptr.
const Range* range_of(FakeState& s, uintptr_t p) {
    auto it = s.ranges.upper_bound(p);
    if (it == s.ranges.begin()) return nullptr;
    --it;
    if (p >= it->first + it->second.bytes) return nullptr;
    return &it->second;
}

// "auto" gives this many helpers on a fake device, whatever the machine's CPUs.
constexpr int kFakeHelpers = 3;

class FakeCopyPlatform final : public CopyPlatform {
  public:
    std::string name() const override { return "fake"; }
    std::string unavailable() override { return ""; }
    int device_count() override { return 2; }

    PointerPlace place(const void* p, uint64_t bytes) override {
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        const auto a = reinterpret_cast<uintptr_t>(p);
        const Range* r = range_of(s, a);
        const Range* end = bytes > 0 ? range_of(s, a + bytes - 1) : r;
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

    DeviceFacts facts(int device) override {
        DeviceFacts f;
        f.device = device;
        f.name = "fake device " + std::to_string(device);
        // 2 x 3 GB/s / 2 GB/s: kFakeHelpers helpers (engine/auto_helpers.hpp).
        f.link_gbps = 3;
        f.link_text = "a fake link";
        f.memcpy_gbps = 2;
        f.local_cpus_why = "a fake device has no CPUs of its own";
        f.cpus = kFakeHelpers;
        f.helper_cap = kFakeHelpers;
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        f.pageable_uses_host_page_tables = s.reads_pageable.count(device) > 0;
        return f;
    }

    std::unique_ptr<StagingDevice> make_device(const ResolvedEngine& r) override {
        auto device = std::make_unique<HostStagingDevice>(staging_layout(r.config));
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        device->fail_at = static_cast<const std::byte*>(s.fail_at);
        return device;
    }

    std::optional<std::string> registry() override {
        FakeState& s = fake();
        std::lock_guard lock(s.mutex);
        if (s.registry.empty()) return std::nullopt;
        return s.registry;
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

void fake_set_pageable_access(int device, bool reads_pageable) {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    if (reads_pageable)
        s.reads_pageable.insert(device);
    else
        s.reads_pageable.erase(device);
}

std::vector<uintptr_t> fake_waited_streams() {
    FakeState& s = fake();
    std::lock_guard lock(s.mutex);
    return s.waited;
}

}  // namespace xfer
