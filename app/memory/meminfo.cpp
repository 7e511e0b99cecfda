// How much memory the system can still give, for the preflight that refuses a plan before
// anything is allocated.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "memory/host_buffer.hpp"

namespace xfer {

uint64_t available_host_memory() {
    // MemAvailable counts reclaimable page cache, which MemFree does not: it is the kernel's
    // own estimate of what can be allocated without swapping.
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream fields(line.substr(13));
        uint64_t kib = 0;
        if (fields >> kib) return kib * 1024;
    }
    // Kernels before 3.14 lack MemAvailable: free pages are the conservative answer.
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace xfer
