// The staging engine's lock (util/spin_first_mutex.hpp): a lock() that finds it taken keeps
// trying for its budget before it sleeps; with a budget of 0 it sleeps at once.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "support/catch.hpp"
#include "util/spin_first_mutex.hpp"

using namespace xfer;

namespace {

// The holder takes the lock, lets a second thread find it taken (its contended count moves),
// keeps it `hold` longer and gives it up; returns what the second thread's lock() counted.
struct Counted {
    uint64_t contended = 0;
    uint64_t slept = 0;
    bool got = false;
};
Counted contend(SpinFirstMutex& m, std::chrono::microseconds hold) {
    m.lock();
    std::atomic<bool> got{false};
    std::thread other([&] {
        std::lock_guard lock(m);
        got = true;
    });
    while (m.contended() == 0) std::this_thread::yield();
    std::this_thread::sleep_for(hold);
    const bool early = got.load();
    m.unlock();
    other.join();
    return {m.contended(), m.slept(), !early && got.load()};
}

}  // namespace

TEST_CASE("spin-first mutex: a lock() that finds it taken keeps trying, within its budget",
          "[util]") {
    SpinFirstMutex m(int64_t(30) * 1'000'000'000);  // 30 s: the holder lets go long before
    const Counted c = contend(m, std::chrono::microseconds(200));
    CHECK(c.got);            // the other thread waited for the holder
    CHECK(c.contended == 1);
    CHECK(c.slept == 0);  // and never slept for it: it took the lock trying
}

TEST_CASE("spin-first mutex: with a budget of 0 it sleeps at once, as a std::mutex", "[util]") {
    SpinFirstMutex m(0);
    const Counted c = contend(m, std::chrono::microseconds(200));
    CHECK(c.got);
    CHECK(c.contended == 1);
    CHECK(c.slept == 1);
}

TEST_CASE("spin-first mutex: past its budget a lock() sleeps", "[util]") {
    SpinFirstMutex m(int64_t(1'000'000));  // 1 ms, against a holder's 300 ms
    const Counted c = contend(m, std::chrono::milliseconds(300));
    CHECK(c.got);
    CHECK(c.slept == 1);
}

TEST_CASE("spin-first mutex: an uncontended lock() counts nothing, and exclusion holds", "[util]") {
    SpinFirstMutex m(int64_t(50'000));
    m.lock();
    CHECK_FALSE(m.try_lock());
    m.unlock();
    CHECK(m.contended() == 0);
    CHECK(m.slept() == 0);
    // Four threads adding under the lock: every increment lands.
    uint64_t sum = 0;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < 20000; ++i) {
                std::lock_guard lock(m);
                ++sum;
            }
        });
    for (auto& t : ts) t.join();
    CHECK(sum == 80000);
    CHECK(m.slept() <= m.contended());
}
