#pragma once
// What this machine lets xferlab start and hold, for the preflight that refuses a plan before
// anything runs.
#include <cstdint>
#include <string>

namespace xfer {

struct ThreadLimit {
    int64_t max_threads = 0;  // <= 0: no limit known
    std::string reason;       // which limit it is, e.g. "RLIMIT_NPROC (ulimit -u) is 50"
};

// The most threads one run may ask for: the smallest of the soft RLIMIT_NPROC (it counts
// every process and thread of the user, so fewer may be left), kernel.threads-max and
// kernel.pid_max (every thread takes a pid).
ThreadLimit thread_limit();

}  // namespace xfer
