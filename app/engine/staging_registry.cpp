#include "engine/staging_registry.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "util/clock.hpp"
#include "util/process_id.hpp"

namespace xfer {
namespace {

// File layout: a 64-byte header, then the slots; every field a 64-bit word read and written
// atomically (the file is shared by processes).
//   header: [0] magic, [1] version (low 32 bits) and slot count (high 32), [2] generation
//   slot:   [0] pid (low 32) and device (high 32), 0: free; [1] helpers (low 32) and flags
//           (high 32); [2] created (CLOCK_REALTIME ns); [3] first CPU (bits 0-15), last CPU
//           (16-31; 0xffff: none) and device key (32-63); [4..7] the CPU set folded into 256
//           bits (CPU c sets bit c % 256)
constexpr uint64_t kMagic = 0x31474e4552454658ull;  // "XFERENG1"
constexpr uint32_t kVersion = 1;
constexpr off_t kHeaderBytes = 64;
constexpr off_t kSlotBytes = 64;
constexpr off_t kFileBytes = kHeaderBytes + kSlotBytes * kEngineRegistrySlots;
constexpr uint64_t kFlagAuto = 1;
constexpr uint64_t kFlagAnyCpu = 2;

static_assert(std::atomic_ref<uint64_t>::is_always_lock_free,
              "the registry's words are shared between processes: they need lock-free atomics");

uint64_t* header_words(void* map) { return static_cast<uint64_t*>(map); }
uint64_t* slot_words(void* map, int slot) {
    return reinterpret_cast<uint64_t*>(static_cast<char*>(map) + kHeaderBytes + kSlotBytes * slot);
}
uint64_t load(uint64_t& w) { return std::atomic_ref<uint64_t>(w).load(std::memory_order_acquire); }
void store(uint64_t& w, uint64_t v) {
    std::atomic_ref<uint64_t>(w).store(v, std::memory_order_release);
}
void bump_generation(void* map) {
    std::atomic_ref<uint64_t>(header_words(map)[2]).fetch_add(1, std::memory_order_acq_rel);
}

// An open-file-description lock on `len` bytes at `start`: F_OFD_SETLK, F_OFD_SETLKW or
// F_OFD_GETLK (which fills `out`).
int ofd_lock(int fd, int cmd, short type, off_t start, off_t len, struct flock* out = nullptr) {
    struct flock fl {};
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = len;
    fl.l_pid = 0;  // required for OFD locks
    int rc;
    do {
        rc = ::fcntl(fd, cmd, &fl);
    } while (rc != 0 && errno == EINTR && cmd == F_OFD_SETLKW);
    if (out) *out = fl;
    return rc;
}
off_t slot_offset(int slot) { return kHeaderBytes + kSlotBytes * slot; }

struct LiveSlot {
    RegisteredEngine engine;
    uint64_t mask[4] = {};
};

void fold_cpus(const std::vector<int>& cpus, uint64_t mask[4]) {
    for (int i = 0; i < 4; ++i) mask[i] = 0;
    for (int c : cpus)
        if (c >= 0) mask[(c % 256) / 64] |= uint64_t(1) << (c % 64);
}

// The live slots other than `skip`. A slot whose owner is gone (no lock on it, though its pid
// is set) is zeroed under its lock, and the generation bumped, so that every engine rescans.
std::vector<LiveSlot> scan_slots(int fd, void* map, int skip) {
    std::vector<LiveSlot> live;
    bool cleaned = false;
    for (int i = 0; i < kEngineRegistrySlots; ++i) {
        if (i == skip) continue;
        uint64_t* w = slot_words(map, i);
        if (load(w[0]) == 0) continue;  // free, or being claimed (its claimer bumps generation)
        struct flock held {};
        if (ofd_lock(fd, F_OFD_GETLK, F_WRLCK, slot_offset(i), kSlotBytes, &held) != 0) continue;
        if (held.l_type == F_UNLCK) {
            // Dead, unless claimed since: zero it only while holding its lock ourselves.
            if (ofd_lock(fd, F_OFD_SETLK, F_WRLCK, slot_offset(i), kSlotBytes) != 0) continue;
            if (load(w[0]) != 0) {
                store(w[0], 0);
                for (int k = 1; k < 8; ++k) store(w[k], 0);
                cleaned = true;
            }
            ofd_lock(fd, F_OFD_SETLK, F_UNLCK, slot_offset(i), kSlotBytes);
            continue;
        }
        const uint64_t w0 = load(w[0]);
        if (w0 == 0) continue;  // released between the checks
        const uint64_t w1 = load(w[1]);
        const uint64_t w3 = load(w[3]);
        LiveSlot s;
        RegisteredEngine& e = s.engine;
        e.pid = int(uint32_t(w0));
        e.device = int(int32_t(uint32_t(w0 >> 32)));
        e.helpers = int(uint32_t(w1));
        e.automatic = ((w1 >> 32) & kFlagAuto) != 0;
        e.any_cpu = ((w1 >> 32) & kFlagAnyCpu) != 0;
        e.first_cpu = e.any_cpu ? -1 : int(w3 & 0xffff);
        e.last_cpu = e.any_cpu ? -1 : int((w3 >> 16) & 0xffff);
        e.device_key = uint32_t(w3 >> 32);
        e.created_ns = int64_t(load(w[2]));
        for (int k = 0; k < 4; ++k) s.mask[k] = load(w[4 + k]);
        live.push_back(s);
    }
    if (cleaned) bump_generation(map);
    return live;
}

// Opens (creating when absent) and maps the registry at `path`. Returns the fd and sets `map`,
// or returns -1 with `why` set.
int open_and_map(const std::string& path, void*& map, std::string& why) {
    map = nullptr;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        why = fmt::format("cannot open the engine registry {}: {}", path, std::strerror(errno));
        return -1;
    }
    auto fail = [&](std::string text) {
        why = fmt::format("the engine registry {} {}", path, text);
        if (map) ::munmap(map, size_t(kFileBytes));
        map = nullptr;
        ::close(fd);
        return -1;
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) return fail(fmt::format("cannot be read: {}", std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return fail("is not a regular file");
    if (st.st_uid != ::geteuid())
        return fail(
            fmt::format("belongs to uid {}, not to this user ({})", st.st_uid, ::geteuid()));
    // Creating and checking the header, one process at a time.
    if (ofd_lock(fd, F_OFD_SETLKW, F_WRLCK, 0, kHeaderBytes) != 0)
        return fail(fmt::format("cannot be locked: {}", std::strerror(errno)));
    auto unlock_fail = [&](std::string text) {
        ofd_lock(fd, F_OFD_SETLK, F_UNLCK, 0, kHeaderBytes);
        return fail(std::move(text));
    };
    if (::fstat(fd, &st) != 0)
        return unlock_fail(fmt::format("cannot be read: {}", std::strerror(errno)));
    // Only an empty file (created just now, here or by another engine) is sized and given a
    // header; a file of another size is not this registry, and is left as it is: a foreign
    // 100-byte file at the path was extended to the registry's size before.
    uint64_t header[kHeaderBytes / 8] = {};
    const ssize_t got = ::pread(fd, header, sizeof header, 0);  // less of a shorter file
    const bool ours_by_magic = got >= ssize_t(sizeof(uint64_t)) && header[0] == kMagic;
    const bool blank_header =
        got == ssize_t(sizeof header) &&
        std::none_of(std::begin(header), std::end(header), [](uint64_t word) { return word != 0; });
    if (st.st_size == 0) {
        if (::ftruncate(fd, kFileBytes) != 0)
            return unlock_fail(fmt::format("cannot be sized: {}", std::strerror(errno)));
    } else if (st.st_size != kFileBytes) {
        return unlock_fail(
            ours_by_magic
                ? fmt::format("has {} bytes, not the {} this xferlab's registry has: written by "
                              "another version",
                              st.st_size, kFileBytes)
                : fmt::format("is not an xferlab engine registry ({} bytes, not {}, without its "
                              "magic): it is left as it is",
                              st.st_size, kFileBytes));
    } else if (!ours_by_magic && !blank_header) {
        // Of the registry's size but not one: refused before anything is written into it (a
        // blank header is a registry whose creator died before writing it).
        return unlock_fail("is not an xferlab engine registry (unknown magic)");
    }
    map = ::mmap(nullptr, size_t(kFileBytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        map = nullptr;
        return unlock_fail(fmt::format("cannot be mapped: {}", std::strerror(errno)));
    }
    uint64_t* h = header_words(map);
    const uint64_t layout = uint64_t(kVersion) | (uint64_t(kEngineRegistrySlots) << 32);
    const uint64_t magic = load(h[0]);
    if (magic == 0) {
        store(h[1], layout);
        store(h[0], kMagic);
    } else if (magic != kMagic) {
        return unlock_fail("is not an xferlab engine registry (unknown magic)");
    } else if (load(h[1]) != layout) {
        return unlock_fail(fmt::format(
            "has version {} with {} slots; this xferlab writes version {} with {}: written by "
            "another version",
            uint32_t(load(h[1])), load(h[1]) >> 32, kVersion, kEngineRegistrySlots));
    }
    ofd_lock(fd, F_OFD_SETLK, F_UNLCK, 0, kHeaderBytes);
    return fd;
}

bool overlaps(const EngineClaim& mine, const uint64_t my_mask[4], const LiveSlot& s) {
    if (mine.cpus.empty() || s.engine.any_cpu) return true;
    for (int k = 0; k < 4; ++k)
        if (my_mask[k] & s.mask[k]) return true;
    return false;
}

}  // namespace

int staging_share(int want, int cap, int fixed_others, int auto_engines) {
    want = std::max(want, 1);
    auto_engines = std::max(auto_engines, 1);
    const int room = cap - std::max(fixed_others, 0);
    return std::clamp(room > 0 ? room / auto_engines : 0, 1, want);
}

int staging_share_cap(int device_cap, int cpu_budget, int devices) {
    device_cap = std::max(device_cap, 1);
    const int64_t per_devices = int64_t(device_cap) * std::max(devices, 1);
    return int(std::min<int64_t>(std::max(cpu_budget, device_cap), per_devices));
}

uint32_t engine_device_key(const std::string& pci_bus_id) {
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    int used = 0;
    if (std::sscanf(pci_bus_id.c_str(), "%4x:%2x:%2x.%1x%n", &domain, &bus, &device, &function,
                    &used) != 4 ||
        size_t(used) != pci_bus_id.size() || device > 0x1f || function > 0x7)
        return 0;
    return (domain << 16) | (bus << 8) | (device << 3) | function;
}

std::string default_engine_registry_path() {
    if (const char* env = std::getenv("XFERLAB_ENGINE_REGISTRY"); env && *env)
        return std::strcmp(env, "off") == 0 ? std::string() : std::string(env);
    const std::string name = fmt::format("xferlab-engines-{}", ::geteuid());
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    for (const char* dir : {"/dev/shm", runtime}) {
        struct stat st {};
        if (dir && *dir && ::stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
            ::access(dir, W_OK | X_OK) == 0)
            return fmt::format("{}/{}", dir, name);
    }
    return "/tmp/" + name;
}

std::string format_cpu_ranges(const std::vector<int>& cpus) {
    std::vector<int> c = cpus;
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    std::string out;
    for (size_t i = 0; i < c.size();) {
        size_t j = i;
        while (j + 1 < c.size() && c[j + 1] == c[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += j == i ? fmt::format("{}", c[i]) : fmt::format("{}-{}", c[i], c[j]);
        i = j + 1;
    }
    return out;
}

EngineRegistration::EngineRegistration(EngineClaim claim, std::string path, int64_t recheck_ns)
    : claim_(std::move(claim)), path_(std::move(path)), recheck_ns_(recheck_ns) {
    claim_.helpers = std::max(claim_.helpers, 1);
    claim_.cap = std::max(claim_.cap, 1);
    if (claim_.cpu_budget <= 0) claim_.cpu_budget = claim_.cap;
    if (claim_.device_key == 0) claim_.device_key = uint32_t(claim_.device) + 1;
    pid_ = int(process_id());
    fold_cpus(claim_.cpus, mask_);
    active_.store(claim_.helpers);
    share_.want = share_.active = claim_.helpers;
    if (path_.empty()) path_ = default_engine_registry_path();
    if (path_.empty()) {
        why_ = "XFERLAB_ENGINE_REGISTRY=off";
        return;
    }
    fd_ = open_and_map(path_, map_, why_);
    if (fd_ < 0) return;
    claim_slot();
    if (slot_ >= 0) refresh();
}

bool EngineRegistration::owner() const { return int(process_id()) == pid_; }

EngineRegistration::~EngineRegistration() {
    if (fd_ < 0) return;
    // In a child made by fork() the slot and its lock (the open file description is shared)
    // are the parent's: closing this copy of the file leaves both alone.
    if (slot_ >= 0 && owner()) {
        uint64_t* w = slot_words(map_, slot_);
        store(w[0], 0);  // scanners skip it from here on
        for (int k = 1; k < 8; ++k) store(w[k], 0);
        bump_generation(map_);
        ofd_lock(fd_, F_OFD_SETLK, F_UNLCK, slot_offset(slot_), kSlotBytes);
    }
    ::munmap(map_, size_t(kFileBytes));
    ::close(fd_);
}

void EngineRegistration::claim_slot() {
    for (int i = 0; i < kEngineRegistrySlots; ++i) {
        if (ofd_lock(fd_, F_OFD_SETLK, F_WRLCK, slot_offset(i), kSlotBytes) != 0) continue;
        slot_ = i;
        break;
    }
    if (slot_ < 0) {
        why_ = fmt::format(
            "every one of the {} slots of the engine registry {} is held by a live engine",
            kEngineRegistrySlots, path_);
        return;
    }
    // The slot may hold a dead owner's words: free it first, then fill it, pid last.
    uint64_t* w = slot_words(map_, slot_);
    store(w[0], 0);
    const bool any = claim_.cpus.empty();
    uint64_t flags = (claim_.automatic ? kFlagAuto : 0) | (any ? kFlagAnyCpu : 0);
    store(w[1], uint64_t(uint32_t(claim_.helpers)) | (flags << 32));
    store(w[2], uint64_t(wall_ns()));
    uint64_t first = 0xffff, last = 0xffff;
    if (!any) {
        first = uint64_t(
            std::clamp(*std::min_element(claim_.cpus.begin(), claim_.cpus.end()), 0, 0xfffe));
        last = uint64_t(
            std::clamp(*std::max_element(claim_.cpus.begin(), claim_.cpus.end()), 0, 0xfffe));
    }
    store(w[3], first | (last << 16) | (uint64_t(claim_.device_key) << 32));
    for (int k = 0; k < 4; ++k) store(w[4 + k], mask_[k]);
    store(w[0], uint64_t(uint32_t(process_id())) | (uint64_t(uint32_t(claim_.device)) << 32));
    bump_generation(map_);
}

void EngineRegistration::scan() {
    const uint64_t generation =
        std::atomic_ref<uint64_t>(header_words(map_)[2]).load(std::memory_order_acquire);
    int engines = 1, autos = 1, fixed_engines = 0, fixed_helpers = 0;
    std::vector<uint32_t> devices{claim_.device_key};
    for (const LiveSlot& s : scan_slots(fd_, map_, slot_)) {
        if (!overlaps(claim_, mask_, s)) continue;
        ++engines;
        if (std::find(devices.begin(), devices.end(), s.engine.device_key) == devices.end())
            devices.push_back(s.engine.device_key);
        if (s.engine.automatic) {
            ++autos;
        } else {
            ++fixed_engines;
            fixed_helpers += s.engine.helpers;
        }
    }
    const int cap = staging_share_cap(claim_.cap, claim_.cpu_budget, int(devices.size()));
    const int active = claim_.automatic ? staging_share(claim_.helpers, cap, fixed_helpers, autos)
                                        : claim_.helpers;
    share_.active = active;
    share_.cap = cap;
    share_.devices = int(devices.size());
    share_.engines = engines;
    share_.fixed_engines = fixed_engines;
    share_.fixed_helpers = fixed_helpers;
    active_.store(active, std::memory_order_relaxed);
    seen_gen_.store(generation, std::memory_order_relaxed);
    next_scan_ns_.store(now_ns() + recheck_ns_, std::memory_order_relaxed);
}

int EngineRegistration::active() {
    if (slot_ < 0 || !claim_.automatic) return used(claim_.helpers);
    const uint64_t generation =
        std::atomic_ref<uint64_t>(header_words(map_)[2]).load(std::memory_order_acquire);
    if (generation == seen_gen_.load(std::memory_order_relaxed) &&
        now_ns() < next_scan_ns_.load(std::memory_order_relaxed))
        return used(active_.load(std::memory_order_relaxed));
    std::lock_guard lock(mutex_);
    // Another worker may have rescanned while this one waited for the lock.
    if ((generation != seen_gen_.load(std::memory_order_relaxed) ||
         now_ns() >= next_scan_ns_.load(std::memory_order_relaxed)) &&
        owner())
        scan();
    return used(active_.load(std::memory_order_relaxed));
}

int EngineRegistration::used(int n) {
    int low = lowest_.load(std::memory_order_relaxed);
    while (n < low && !lowest_.compare_exchange_weak(low, n, std::memory_order_relaxed)) {
    }
    int high = highest_.load(std::memory_order_relaxed);
    while (n > high && !highest_.compare_exchange_weak(high, n, std::memory_order_relaxed)) {
    }
    return n;
}

int EngineRegistration::refresh() {
    if (slot_ < 0) return claim_.helpers;
    std::lock_guard lock(mutex_);
    if (owner()) scan();
    return active_.load(std::memory_order_relaxed);
}

EngineShare EngineRegistration::summary(bool restart) {
    std::lock_guard lock(mutex_);
    EngineShare out = share_;
    out.lowest = lowest_.load(std::memory_order_relaxed);
    out.highest = highest_.load(std::memory_order_relaxed);
    if (out.highest == 0) out.lowest = out.highest = out.active;  // active() not asked yet
    if (restart) {
        lowest_.store(std::numeric_limits<int>::max(), std::memory_order_relaxed);
        highest_.store(0, std::memory_order_relaxed);
    }
    return out;
}

std::string EngineRegistration::describe(bool restart) {
    const EngineShare s = summary(restart);
    const std::string where = claim_.cpus.empty() ? std::string("the machine's CPUs")
                                                  : "CPUs " + format_cpu_ranges(claim_.cpus);
    if (!claim_.automatic)
        return fmt::format("{} helper{} (fixed), registered with the engines sharing {}",
                           claim_.helpers, claim_.helpers == 1 ? "" : "s", where);
    if (slot_ < 0)
        return fmt::format("auto: {} helper{}, not shared with other processes' engines ({})",
                           claim_.helpers, claim_.helpers == 1 ? "" : "s", why_);
    const std::string count = s.lowest == s.highest ? fmt::format("{}", s.active)
                                                    : fmt::format("{}-{}", s.lowest, s.highest);
    std::string out =
        s.engines == 1
            ? fmt::format("auto: {} of {} helpers, no other engine shares {}", count, s.want, where)
            : fmt::format("auto: {} of {} helpers, {} engines{} share {}", count, s.want, s.engines,
                          s.devices > 1 ? fmt::format(" of {} devices", s.devices) : "", where);
    if (s.fixed_engines > 0)
        out += fmt::format(" ({} of them with a fixed staging.threads: {} helpers)",
                           s.fixed_engines, s.fixed_helpers);
    return out;
}

std::vector<RegisteredEngine> registry_engines(const std::string& path) {
    const std::string p = path.empty() ? default_engine_registry_path() : path;
    if (p.empty()) return {};
    void* map = nullptr;
    std::string why;
    const int fd = open_and_map(p, map, why);
    if (fd < 0) return {};
    std::vector<RegisteredEngine> out;
    for (const LiveSlot& s : scan_slots(fd, map, -1)) out.push_back(s.engine);
    ::munmap(map, size_t(kFileBytes));
    ::close(fd);
    return out;
}

std::shared_ptr<EngineRegistration> join_engine_registry(EngineClaim claim,
                                                         std::function<int()>& active_helpers,
                                                         std::string path) {
    const bool automatic = claim.automatic;
    auto registration = std::make_shared<EngineRegistration>(std::move(claim), std::move(path));
    if (automatic) active_helpers = [registration] { return registration->active(); };
    return registration;
}

}  // namespace xfer
