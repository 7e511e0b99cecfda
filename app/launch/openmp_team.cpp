#include "launch/openmp_team.hpp"

#include <fmt/format.h>
#include <pthread.h>

#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "util/format.hpp"

namespace xfer {
namespace {

// The team libgomp keeps after the last region (1: the calling thread alone, none started yet).
std::atomic<int> g_team_kept{1};

// Threads that wait until the probe lets them go: all alive at once.
struct HeldThreads {
    std::mutex mutex;
    std::condition_variable cv;
    bool go = false;
};

void* wait_for_release(void* arg) {
    HeldThreads& held = *static_cast<HeldThreads*>(arg);
    std::unique_lock lock(held.mutex);
    held.cv.wait(lock, [&] { return held.go; });
    return nullptr;
}

// Starts `count` threads with stacks of `stack` bytes (0: the default) that all live until the
// last has started, then ends them. "" when every one started, else pthread_create's reason.
std::string start_held_threads(int count, size_t stack, size_t& stack_used) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (stack > 0) pthread_attr_setstacksize(&attr, stack);  // too small: the default stays
    pthread_attr_getstacksize(&attr, &stack_used);
    HeldThreads held;
    std::vector<pthread_t> started;
    std::string why;
    for (int i = 0; i < count; ++i) {
        pthread_t thread;
        if (const int rc = pthread_create(&thread, &attr, wait_for_release, &held)) {
            why = std::strerror(rc);
            break;
        }
        started.push_back(thread);
    }
    {
        std::lock_guard lock(held.mutex);
        held.go = true;
    }
    held.cv.notify_all();
    for (pthread_t t : started) pthread_join(t, nullptr);
    pthread_attr_destroy(&attr);
    return why;
}

// "8M", "512 k", "4096" (KiB) as bytes; 0 for anything else.
size_t stack_size_from(const char* text) {
    if (!text) return 0;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text, &end, 10);
    if (end == text) return 0;
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
    const char suffix = char(std::tolower(static_cast<unsigned char>(*end)));
    const unsigned long long unit = suffix == '\0' || suffix == 'k' ? 1024ull
                                    : suffix == 'b'                 ? 1ull
                                    : suffix == 'm'                 ? 1024ull * 1024
                                    : suffix == 'g'                 ? 1024ull * 1024 * 1024
                                                                    : 0;
    return size_t(n * unit);
}

}  // namespace

size_t openmp_stack_size() {
    if (const size_t s = stack_size_from(std::getenv("OMP_STACKSIZE"))) return s;
    return stack_size_from(std::getenv("GOMP_STACKSIZE"));
}

std::string openmp_team_problem(int n) {
    const int more = n - g_team_kept.load();
    if (more <= 0) return "";
    size_t stack = 0;
    const std::string why = start_held_threads(more, openmp_stack_size(), stack);
    if (why.empty()) return "";
    return fmt::format(
        "OpenMP cannot start a team of {} threads here: pthread_create: {} ({} more thread{} with "
        "OpenMP's stack of {} could not all start, tried before the parallel region, since "
        "libgomp ends the whole process when it cannot create one)",
        n, why, more, more == 1 ? "" : "s", format_size(stack));
}

void openmp_team_started(int n) { g_team_kept.store(n); }

}  // namespace xfer
