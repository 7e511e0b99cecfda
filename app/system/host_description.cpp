#include "system/host_description.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "system/hostname.hpp"
#include "system/meminfo.hpp"

namespace xfer {
namespace {

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown";
}

int numa_nodes() {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/node", ec)) {
        auto name = e.path().filename().string();
        if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(name[4])) ++n;
    }
    return n;
}

// MemTotal in KiB as /proc/meminfo says it; -1 when unreadable.
long long memory_kib() {
    const uint64_t total = total_host_memory();
    return total ? (long long)(total / 1024) : -1LL;
}

}  // namespace

nlohmann::json describe_host() {
    utsname u{};
    uname(&u);
    return {
        {"hostname", this_hostname()},
        {"cpu_model", cpu_model()},
        {"logical_cpus", std::thread::hardware_concurrency()},
        {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
        {"numa_nodes", numa_nodes()},
        {"transparent_hugepage", read_first_line("/sys/kernel/mm/transparent_hugepage/enabled")},
        {"kernel", std::string(u.sysname) + " " + u.release},
        {"machine", u.machine},
        {"memory_kib", memory_kib()},
        {"page_size", sysconf(_SC_PAGESIZE)},
    };
}

}  // namespace xfer
