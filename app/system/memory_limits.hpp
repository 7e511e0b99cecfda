#pragma once
// How much host memory this process can really get: the smallest of what the system has free
// (MemAvailable), what its address-space limit (`ulimit -v`) leaves, and what the memory limit
// of its cgroup and every parent cgroup leaves (containers). The preflight refuses a plan past
// it; `run --fit` sizes copies to it. Every input is a path or a value so that tests can
// point it at fake files.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct MemoryLimit {
    enum class Kind { available, address_space, cgroup };
    Kind kind = Kind::available;
    uint64_t limit = 0;  // MemTotal, the RLIMIT_AS value, or the cgroup's limit
    uint64_t left = 0;   // what a new allocation can still get under it
    std::string where;   // cgroup: the file holding the limit
};

// "only 3.1 GiB is free (MemAvailable)", "the address-space limit (ulimit -v) of 1 GiB leaves
// 700 MiB", "the cgroup memory limit of 2 GiB (/sys/fs/cgroup/x/memory.max) leaves 1.2 GiB".
std::string describe(const MemoryLimit& limit);
// "MemAvailable", "ulimit -v", "the cgroup memory limit".
std::string limit_name(const MemoryLimit& limit);

struct MemoryBudget {
    std::vector<MemoryLimit> limits;  // MemAvailable first, then those that are set
    // The limit that leaves least: the one a large allocation runs into first.
    const MemoryLimit& binding() const;
    uint64_t left() const { return binding().left; }
    uint64_t total() const { return limits.front().limit; }  // MemTotal, 0 when unknown
};

inline constexpr uint64_t kNoAddressSpaceLimit = UINT64_MAX;

struct MemorySources {
    std::filesystem::path meminfo = "/proc/meminfo";
    std::filesystem::path self_status = "/proc/self/status";  // VmSize: what is already mapped
    std::filesystem::path self_cgroup = "/proc/self/cgroup";
    std::filesystem::path cgroup_root = "/sys/fs/cgroup";
    // Unset: the soft RLIMIT_AS of this process; kNoAddressSpaceLimit: none.
    std::optional<uint64_t> address_space_limit;
};

MemoryBudget read_memory_budget(const MemorySources& sources = {});

}  // namespace xfer
