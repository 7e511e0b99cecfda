#include "remote/record_stream.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <type_traits>

#include "launch/worker.hpp"
#include "util/thread_start.hpp"

namespace xfer {

static_assert(std::is_trivially_copyable_v<Record>, "records are sent as their bytes");

std::string record_batch_frame(const std::vector<Record>& records) {
    std::string frame(1 + records.size() * sizeof(Record), kRecordBatchTag);
    if (!records.empty())
        std::memcpy(frame.data() + 1, records.data(), records.size() * sizeof(Record));
    return frame;
}

std::optional<std::vector<Record>> records_of_batch(std::string_view frame) {
    if (frame.empty() || frame[0] != kRecordBatchTag || (frame.size() - 1) % sizeof(Record) != 0)
        return std::nullopt;
    std::vector<Record> records((frame.size() - 1) / sizeof(Record));
    if (!records.empty()) std::memcpy(records.data(), frame.data() + 1, frame.size() - 1);
    return records;
}

RecordStreamer::RecordStreamer(Send send, std::chrono::milliseconds interval)
    : send_(std::move(send)), interval_(interval) {}

RecordStreamer::~RecordStreamer() { stop(); }

std::string RecordStreamer::start(std::vector<const Worker*> workers) {
    workers_ = std::move(workers);
    sent_.assign(workers_.size(), 0);
    std::string no_thread;
    thread_ = start_thread([this] { loop(); }, no_thread);
    if (no_thread.empty()) return "";
    return "records were not sent while the workers copied (the thread that sends them could "
           "not start: " +
           no_thread + "): a death of this process before its result loses them all";
}

void RecordStreamer::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void RecordStreamer::loop() {
    // SCHED_IDLE: the batches take a core only when no copying thread wants it, so that on a
    // machine with no core to spare streaming delays the batches rather than the copies.
    // Unprivileged, and a failure only means normal priority.
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    std::unique_lock lock(mutex_);
    for (;;) {
        // At the end no last batch: the result, sent right after, carries every record.
        if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) return;
        lock.unlock();
        send_batch();
        lock.lock();
    }
}

void RecordStreamer::send_batch() {
    if (broken_) return;
    std::vector<Record> batch;
    for (size_t k = 0; k < workers_.size(); ++k)
        sent_[k] = workers_[k]->copy_published(sent_[k], batch);
    if (batch.empty()) return;
    try {
        send_(record_batch_frame(batch));
        sent_total_ += batch.size();
    } catch (const std::exception&) {
        broken_ = true;  // the parent is gone or its pipe is: nobody to stream to
    }
}

}  // namespace xfer
