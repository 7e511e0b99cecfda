#include "system/limits.hpp"

#include <sys/resource.h>

#include <fstream>

#include "system/memory_limits.hpp"

namespace xfer {
namespace {

int64_t read_number(const char* path) {
    std::ifstream in(path);
    int64_t n = 0;
    return (in >> n) ? n : 0;
}

void lower(ThreadLimit& limit, int64_t value, const std::string& reason) {
    if (value <= 0) return;
    if (limit.max_threads <= 0 || value < limit.max_threads) limit = {value, reason};
}

}  // namespace

ThreadLimit thread_limit() {
    ThreadLimit limit;
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        lower(limit, int64_t(rl.rlim_cur),
              "the soft RLIMIT_NPROC (ulimit -u) is " + std::to_string(rl.rlim_cur) +
                  ", and it counts every process and thread of the user");
    }
    lower(limit, read_number("/proc/sys/kernel/threads-max"),
          "kernel.threads-max is " + std::to_string(read_number("/proc/sys/kernel/threads-max")));
    lower(limit, read_number("/proc/sys/kernel/pid_max"),
          "kernel.pid_max is " + std::to_string(read_number("/proc/sys/kernel/pid_max")));
    return limit;
}


}  // namespace xfer
