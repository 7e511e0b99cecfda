#pragma once
// /proc/meminfo and its "Key: value" siblings, read in one place: the preflight's memory figures
// (system/memory_limits.cpp) and the host description.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace xfer {

// The number after `key` ("MemTotal:") in a "key value" file (/proc/meminfo,
// /proc/self/status, a cgroup's memory.stat); nullopt when the key is absent.
std::optional<uint64_t> keyed_number(const std::filesystem::path& file, const std::string& key);

struct MemInfo {
    uint64_t total = 0;      // MemTotal in bytes (0 when unreadable)
    uint64_t available = 0;  // MemAvailable: what can be allocated without swapping
};
// Kernels before 3.14 lack MemAvailable: free pages are the conservative answer then.
MemInfo read_meminfo(const std::filesystem::path& file = "/proc/meminfo");

inline uint64_t total_host_memory() { return read_meminfo().total; }
inline uint64_t available_host_memory() { return read_meminfo().available; }

}  // namespace xfer
