#include "remote/record_stream.hpp"

#include <nlohmann/json.hpp>

#include "launch/worker.hpp"
#include "results/serialize.hpp"

namespace xfer {

RecordStreamer::RecordStreamer(Send send, std::chrono::milliseconds interval)
    : send_(std::move(send)), interval_(interval) {}

RecordStreamer::~RecordStreamer() { stop(); }

void RecordStreamer::start(std::vector<const Worker*> workers) {
    workers_ = std::move(workers);
    sent_.assign(workers_.size(), 0);
    thread_ = std::thread([this] { loop(); });
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
        send_(nlohmann::json{{"type", "records"}, {"records", batch}}.dump());
        sent_total_ += batch.size();
    } catch (const std::exception&) {
        broken_ = true;  // the parent is gone or its pipe is: nobody to stream to
    }
}

}  // namespace xfer
