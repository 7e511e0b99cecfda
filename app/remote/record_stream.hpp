#pragma once
// A worker process's records on their way to its parent while it copies (issue 15, item 4): a
// thread that every `interval` sends the records its workers completed since its last batch,
// as one binary frame (record_batch_frame). The timed copies never write to the pipe
// (the thread reads the records with Worker::copy_published), and a worker process killed
// mid-run has left its parent every record of the batches sent before. The final "result"
// still carries every record, with the device timestamps that are only known once the run
// ended: the parent keeps the batches only for a worker process that never sent it.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "launch/execute_workers.hpp"

namespace xfer {

// A batch of records as one frame: kRecordBatchTag, then the records' bytes. Binary, not
// JSON: encoding JSON costs about as much CPU as the copies of small transfers, and the
// streaming thread would take it from the copying threads (measured: 2 worker processes of
// 64 KiB copies on 2 cores lost 40% of their aggregate). Parent and worker are one executable
// (the worker is /proc/self/exe), so Record's layout is the same at both ends. Every other
// frame of the protocol is JSON and starts with '{'.
inline constexpr char kRecordBatchTag = 'R';
std::string record_batch_frame(const std::vector<Record>& records);
// The records of a batch frame; nullopt for a frame that is not one (no tag, or a length that
// is not a whole number of records).
std::optional<std::vector<Record>> records_of_batch(std::string_view frame);

class RecordStreamer final : public RecordWatcher {
  public:
    using Send = std::function<void(const std::string& frame)>;  // throws when the parent is gone

    explicit RecordStreamer(Send send,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~RecordStreamer() override;  // stops
    RecordStreamer(const RecordStreamer&) = delete;
    RecordStreamer& operator=(const RecordStreamer&) = delete;

    std::string start(std::vector<const Worker*> workers) override;
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
