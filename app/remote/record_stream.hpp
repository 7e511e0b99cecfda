#pragma once
// A worker process's records on their way to its parent while it copies (issue 15, item 4): a
// thread that every `interval` sends the records its workers completed since its last batch,
// as one frame {"type": "records", "records": [...]}. The timed copies never write to the pipe
// (the thread reads the records with Worker::copy_published), and a worker process killed
// mid-run has left its parent every record of the batches sent before. The final "result"
// still carries every record, with the device timestamps that are only known once the run
// ended: the parent keeps the batches only for a worker process that never sent it.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launch/execute_workers.hpp"

namespace xfer {

class RecordStreamer final : public RecordWatcher {
  public:
    using Send = std::function<void(const std::string& frame)>;  // throws when the parent is gone

    explicit RecordStreamer(Send send,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~RecordStreamer() override;  // stops
    RecordStreamer(const RecordStreamer&) = delete;
    RecordStreamer& operator=(const RecordStreamer&) = delete;

    void start(std::vector<const Worker*> workers) override;
    // Ends the thread (what the last batch left is the final result's alone).
    void stop() override;

    size_t records_sent() const { return sent_total_; }  // read after stop()

  private:
    void loop();
    void send_batch();  // a failed send ends streaming: the final result tells the rest

    Send send_;
    std::chrono::milliseconds interval_;
    std::vector<const Worker*> workers_;
    std::vector<size_t> sent_;  // per worker: records already sent
    size_t sent_total_ = 0;
    bool broken_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace xfer
