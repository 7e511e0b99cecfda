// A worker process's record streaming (remote/record_stream.hpp) against a worker copying on
// its own thread: every batch holds only complete records, in order, none twice, and the
// batches are sent while the worker copies, not at its end; the batch frame's encoding. Run under
// TSan too (tools/ci-sanitizers.sh thread): the streamer reads the records while they are written.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "backend/host_backend.hpp"
#include "launch/worker.hpp"
#include "remote/record_stream.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

struct Sent {
    std::mutex mutex;
    std::vector<char> tags;
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
            auto batch = records_of_batch(frame);
            std::lock_guard lock(sent.mutex);
            sent.tags.push_back(frame.empty() ? '\0' : frame[0]);
            sent.batches.push_back(batch.value_or(std::vector<Record>()));
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
    for (char tag : sent.tags) CHECK(tag == kRecordBatchTag);
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

TEST_CASE("a record batch frame gives back its records, and a frame of another length is refused",
          "[remote][stream]") {
    Record a;
    a.worker = 2;
    a.repetition = -1;
    a.warmup = true;
    a.host_start_ns = 123456789012345;
    a.device_timing = DeviceTiming::cupti;
    Record b;
    b.pid = 4711;
    b.between_ns = 99;
    const std::string frame = record_batch_frame({a, b});
    CHECK(frame.size() == 1 + 2 * sizeof(Record));
    const auto back = records_of_batch(frame);
    REQUIRE(back);
    REQUIRE(back->size() == 2);
    CHECK((*back)[0].worker == 2);
    CHECK((*back)[0].warmup);
    CHECK((*back)[0].host_start_ns == 123456789012345);
    CHECK((*back)[0].device_timing == DeviceTiming::cupti);
    CHECK((*back)[1].pid == 4711);
    CHECK((*back)[1].between_ns == 99);
    CHECK_FALSE(records_of_batch(frame.substr(0, frame.size() - 1)));
    CHECK_FALSE(records_of_batch("{\"type\": \"result\"}"));
    CHECK(records_of_batch(std::string(1, kRecordBatchTag))->empty());
}
