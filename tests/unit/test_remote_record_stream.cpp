// A worker process's record streaming (remote/record_stream.hpp) against a worker copying on
// its own thread: every batch holds only complete records, in order, none twice, and the
// batches are sent while the worker copies, not at its end. Run under TSan too
// (tools/ci-sanitizers.sh thread): the streamer reads the records while they are written.
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend/host_backend.hpp"
#include "launch/worker.hpp"
#include "remote/record_stream.hpp"
#include "results/serialize.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

struct Sent {
    std::mutex mutex;
    std::vector<std::string> types;
    std::vector<std::vector<Record>> batches;

    size_t total() {
        std::lock_guard lock(mutex);
        size_t n = 0;
        for (const auto& b : batches) n += b.size();
        return n;
    }
};

}  // namespace

TEST_CASE("RecordStreamer sends a copying worker's records in batches, each once and complete",
          "[remote][stream]") {
    TransferSpec t;
    t.bytes = 4096;
    auto backend = make_host_backend();
    constexpr int kCopies = 400;
    Worker w(3, 0, backend->prepare(t, 0), kCopies, 0);
    Sent sent;
    RecordStreamer streamer(
        [&](const std::string& frame) {
            // On the streamer's thread: collected here, checked on the test's (Catch2's
            // assertions are not thread-safe).
            const auto j = nlohmann::json::parse(frame);
            std::lock_guard lock(sent.mutex);
            sent.types.push_back(j.at("type").get<std::string>());
            sent.batches.push_back(j.at("records").get<std::vector<Record>>());
        },
        std::chrono::milliseconds(5));
    streamer.start({&w});
    std::thread copier([&] {
        w.enter_thread("test");
        for (int i = 0; i < kCopies; ++i) {
            w.copy_once();
            std::this_thread::sleep_for(std::chrono::microseconds(100));  // ~40 ms in all
        }
    });
    copier.join();
    // stop() sends no last batch (the result carries everything): wait for the batches to
    // catch up, however slow the machine (or a sanitizer) makes them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (sent.total() < size_t(kCopies) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    streamer.stop();

    CHECK(sent.batches.size() >= 2);  // sent while copying, not once at the end
    for (const auto& type : sent.types) CHECK(type == "records");
    std::vector<Record> all;
    for (const auto& b : sent.batches) all.insert(all.end(), b.begin(), b.end());
    CHECK(streamer.records_sent() == all.size());
    REQUIRE(all.size() == size_t(kCopies));  // everything, since the worker ended first
    for (int i = 0; i < kCopies; ++i) {
        CHECK(all[size_t(i)].repetition == i);
        CHECK(all[size_t(i)].host_end_ns >= all[size_t(i)].host_start_ns);
        CHECK(all[size_t(i)].host_start_ns == w.records()[size_t(i)].host_start_ns);
    }
}

TEST_CASE("copy_published stays safe when a payload copies past the reserved records",
          "[remote][stream]") {
    TransferSpec t;
    t.bytes = 4096;
    auto backend = make_host_backend();
    Worker w(0, 0, backend->prepare(t, 0), 2, 0);  // 2 reserved, 300 made
    std::vector<Record> seen;
    size_t from = 0;
    std::thread copier([&] {
        w.enter_thread("test");
        for (int i = 0; i < 300; ++i) w.copy_once();
    });
    while (from < 300) from = w.copy_published(from, seen);
    copier.join();
    REQUIRE(seen.size() == 300);
    for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i].repetition == int(i));
}

TEST_CASE("RecordStreamer stops quietly when the parent is gone", "[remote][stream]") {
    TransferSpec t;
    t.bytes = 4096;
    auto backend = make_host_backend();
    Worker w(0, 0, backend->prepare(t, 0), 4, 0);
    std::atomic<int> attempts{0};
    RecordStreamer streamer(
        [&](const std::string&) {
            ++attempts;
            throw std::runtime_error("EPIPE");
        },
        std::chrono::milliseconds(1));
    streamer.start({&w});
    w.enter_thread("test");
    // One copy, until the streamer has tried to send it; then another, which it must not try.
    const auto wait_a_while = [&] {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (attempts == 0 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    w.copy_once();
    wait_a_while();
    w.copy_once();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // 30 more wake-ups
    streamer.stop();
    CHECK(attempts == 1);  // after the first failure nothing more is tried
    CHECK(streamer.records_sent() == 0);
}
