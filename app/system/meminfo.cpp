#include "system/meminfo.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace xfer {
namespace {

// The value of `key` ("MemTotal:") in bytes; nullopt-like 0 with `found` false when absent.
uint64_t meminfo_bytes(const std::string& key, bool& found) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0) continue;
        std::istringstream fields(line.substr(key.size()));
        uint64_t kib = 0;
        if (fields >> kib) {
            found = true;
            return kib * 1024;
        }
    }
    found = false;
    return 0;
}

}  // namespace

uint64_t total_host_memory() {
    bool found = false;
    return meminfo_bytes("MemTotal:", found);
}

uint64_t available_host_memory() {
    // MemAvailable counts reclaimable page cache, which MemFree does not: it is the kernel's
    // own estimate of what can be allocated without swapping.
    bool found = false;
    const uint64_t bytes = meminfo_bytes("MemAvailable:", found);
    if (found) return bytes;
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace xfer
