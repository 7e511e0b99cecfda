#pragma once
// The registry of live staging engines on this machine, so that threads = "auto" shares the CPUs
// between engines in several processes (launchers "process" and "mpi", Python programs using
// the `xferlab` module) instead of each process taking up to 12 helpers for itself.
//
// The registry is one small file, mmap'd by every engine of one user:
//   $XFERLAB_ENGINE_REGISTRY when set ("off": no registry, every engine on its own),
//   else /dev/shm/xferlab-engines-<uid>, else $XDG_RUNTIME_DIR/..., else /tmp/...
// created with mode 0600, so only one user's engines share it (and MPI ranks only with ranks
// that see the same /dev/shm: same host, same container). It holds a header {magic, version,
// generation} and kEngineRegistrySlots slots of 64 bytes {pid, device, helpers, auto or fixed,
// CPU set, created}. An engine claims a free slot by taking an open-file-description write lock
// (fcntl F_OFD_SETLK) on the slot's bytes, fills it and bumps `generation`. A slot is live while
// its lock is held: the kernel drops the lock when its owner closes the file or dies, SIGKILL
// included, so a dead engine's slot is found unlocked by the next scan and zeroed there.
//
// POSIX only; no CUDA and no Python here (the CUDA backend and the Python module both use it).
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xfer {

constexpr int kEngineRegistrySlots = 256;
// A registration rechecks the registry at least this often for engines that died (a death
// does not bump the generation), even when no engine came or went.
constexpr int64_t kEngineRegistryRecheckNs = 1'000'000'000;

// The helpers an "auto" engine lets take work when it shares CPUs with others:
//   clamp(floor((cap - fixed_others) / auto_engines), 1, want)
// `want`: the helpers the engine would use alone; `cap`: the most helpers the sharing engines
// take together (staging_share_cap); `fixed_others`: helpers of the other engines with an
// explicit thread count; `auto_engines`: the live "auto" engines, this one included. Only
// engines whose CPU sets overlap this one's count. Pure; never below 1.
int staging_share(int want, int cap, int fixed_others, int auto_engines);

// The cap the sharing engines split: `device_cap` helpers per distinct device among them (the
// most one device's staging is faster with: min(12, its local CPUs)), at most `cpu_budget`
// (the CPUs the helpers may run on; below device_cap counts as device_cap). One device: its
// device_cap, as for an engine alone; engines of 4 devices on a 48-CPU socket: 48. Pure.
int staging_share_cap(int device_cap, int cpu_budget, int devices);

// Where the registry lives for this user (see above); empty when XFERLAB_ENGINE_REGISTRY=off.
std::string default_engine_registry_path();

// What an engine registers.
struct EngineClaim {
    int device = 0;           // the process's device number (for diagnostics)
    int helpers = 1;          // automatic: the helpers it wants; else its fixed thread count
    bool automatic = true;    // threads = "auto": shares; else registered as fixed helpers
    int cap = 1;              // automatic: staging_share_cap's device_cap
    int cpu_budget = 0;       // automatic: staging_share_cap's cpu_budget (0: cap)
    std::vector<int> cpus{};  // where its helpers run; empty: anywhere (overlaps every engine)
    // The physical device across processes (device numbers differ under CUDA_VISIBLE_DEVICES):
    // e.g. its PCI address packed (engine_device_key); 0: device + 1.
    uint32_t device_key = 0;
};

// "0000:3b:00.0" -> domain << 16 | bus << 8 | device << 3 | function; 0 when unparsable.
uint32_t engine_device_key(const std::string& pci_bus_id);

// One live engine as a scan found it (registry_engines()).
struct RegisteredEngine {
    int pid = 0;
    int device = 0;
    uint32_t device_key = 0;
    int helpers = 0;
    bool automatic = false;
    bool any_cpu = false;    // registered without a CPU set
    int first_cpu = -1;      // the lowest and highest CPU of its set (-1: any_cpu; at most
    int last_cpu = -1;       // 65534 is recorded, higher ones as 65534)
    int64_t created_ns = 0;  // CLOCK_REALTIME
};

// The last share a registration computed (summary()).
struct EngineShare {
    int want = 0;           // helpers wanted (claim.helpers)
    int active = 0;         // helpers allowed to take work now
    int lowest = 0;         // the fewest and most active() returned since the registration
    int highest = 0;        // or the last summary(true); both `active` when it was not asked
    int cap = 0;            // staging_share_cap over the sharing engines
    int engines = 1;        // live engines sharing CPUs with this one, itself included
    int devices = 1;        // distinct devices among them
    int fixed_engines = 0;  // of those, engines with a fixed thread count
    int fixed_helpers = 0;  // and their helpers
};

// An engine's slot in the registry, held for the registration's lifetime (RAII). Never throws
// for the registry's sake: when the file cannot be used (unwritable, another user's, an
// incompatible version, every slot taken) the engine runs alone (active() == claim.helpers)
// and why() says so. Thread-safe: active() may be called from every worker at once. Several
// registrations in one process are separate engines (each opens the file itself); a child made
// by fork() shares its parent's slots (its copy neither rescans nor frees them: use it in the
// parent only), and exec'd children do not inherit them (O_CLOEXEC).
class EngineRegistration {
  public:
    // `path`: the registry file; empty: default_engine_registry_path(). `recheck_ns`: the
    // longest active() trusts its last scan when the generation did not change.
    explicit EngineRegistration(EngineClaim claim, std::string path = {},
                                int64_t recheck_ns = kEngineRegistryRecheckNs);
    ~EngineRegistration();  // zeroes the slot, bumps the generation, drops the lock
    EngineRegistration(const EngineRegistration&) = delete;
    EngineRegistration& operator=(const EngineRegistration&) = delete;

    // How many helpers may take work now: staging_share() over the live engines whose CPUs
    // overlap (fixed claims: claim.helpers). Cheap when nothing changed (an atomic load of the
    // generation and a clock read); rescans the slots when the generation changed or
    // recheck_ns passed, zeroing the slots of dead owners on the way.
    int active();
    // Rescans now, whatever the generation says; returns active().
    int refresh();

    const EngineClaim& claim() const { return claim_; }
    bool registered() const { return slot_ >= 0; }
    const std::string& path() const { return path_; }
    // Empty when registered; else why the engine runs alone.
    const std::string& why() const { return why_; }
    // The last computed share; `restart`: lowest/highest start afresh from the next active().
    EngineShare summary(bool restart = false);
    // For the run's notes, e.g. "auto: 3 of 12 helpers, 4 engines share CPUs 0-15"
    // ("3-12 of 12" when the share changed since the last describe(true)).
    std::string describe(bool restart = false);

  private:
    void claim_slot();
    void scan();         // under mutex_
    bool owner() const;  // false in a child made by fork(): the slot is the parent's
    int used(int n);     // records n in lowest_/highest_; returns it

    EngineClaim claim_;
    std::string path_;
    std::string why_;
    int64_t recheck_ns_;
    int fd_ = -1;
    void* map_ = nullptr;
    int slot_ = -1;
    int pid_ = 0;            // the registering process
    uint64_t mask_[4] = {};  // claim_.cpus folded into 256 bits

    std::mutex mutex_;                   // scans and share_
    std::atomic<uint64_t> seen_gen_{0};  // generation at the start of the last scan
    std::atomic<int64_t> next_scan_ns_{0};
    std::atomic<int> active_{1};
    std::atomic<int> lowest_{std::numeric_limits<int>::max()};
    std::atomic<int> highest_{0};
    EngineShare share_;  // under mutex_; its lowest/highest come from lowest_/highest_
};

// The live engines in the registry at `path` (empty: the default; created when absent),
// zeroing dead slots on the way. For tests and diagnostics; empty when it cannot be used.
std::vector<RegisteredEngine> registry_engines(const std::string& path = {});

// "0-15", "0-3,8-11"; "" for none.
std::string format_cpu_ranges(const std::vector<int>& cpus);

// Registers an engine: a slot for `claim` in the registry at `path` (empty: the default), and
// for an "auto" claim `active_helpers` (the engine's StagingConfig::active_helpers) set to ask
// it at every request. The slot lives while the returned pointer or the hook does.
std::shared_ptr<EngineRegistration> join_engine_registry(EngineClaim claim,
                                                         std::function<int()>& active_helpers,
                                                         std::string path = {});

}  // namespace xfer
