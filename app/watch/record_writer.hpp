#pragma once
// Writes one process's records (watch/watch_records.h) into DIR/<pid>.xwatch, from any thread.
// Part of the injected library: it depends on nothing but the C and C++ runtimes, throws
// nothing, and never lets a failure reach the program (a write it cannot make is counted).
//
// Memory stays bounded whatever the program does: the file is mapped one segment at a time
// (kSegmentBytes), each segment reserved on disk (posix_fallocate) before it is mapped, and the
// previous one unmapped once full; what was written stays in the page cache and reaches the
// file. A forked child never writes into its parent's file: its first record opens its own.
#include <cstdint>
#include <mutex>
#include <string>

#include "watch/watch_records.h"

namespace xfer::watch {

class RecordWriter {
  public:
    static constexpr uint64_t kSegmentBytes = uint64_t(1) << 20;  // 16384 records

    RecordWriter() = default;
    ~RecordWriter();
    RecordWriter(const RecordWriter&) = delete;
    RecordWriter& operator=(const RecordWriter&) = delete;

    // Records of this process go into `dir` from now on (the file is created at the first
    // record, or now with `create_now`). Returns "" or why not.
    std::string open(const std::string& dir, bool create_now = true);
    bool is_open() const { return !dir_.empty(); }

    // Writes `r` with its commit word set to `type` (the caller fills tid and body). Never
    // blocks on anything but other writers; returns false when the record could not be written.
    bool write(xw_type type, xw_record& r);

    // Records that could not be written (a full disk, a file that could not be made).
    uint64_t not_written() const { return not_written_; }
    // The path of the current file ("" before the first).
    std::string path() const;

    // Unmaps and closes (the exit handler; later writes reopen nothing and count as lost).
    void close();

    // pthread_atfork's three hooks, installed once for every writer by open().
    void before_fork();
    void after_fork_parent();
    void after_fork_child();

  private:
    bool ensure_file_locked();
    bool next_segment_locked();
    void unmap_locked();

    std::mutex mutex_;
    std::string dir_;
    std::string path_;
    int fd_ = -1;
    int owner_pid_ = 0;  // the process that opened fd_
    char* segment_ = nullptr;
    uint64_t segment_offset_ = 0;  // file offset of segment_
    uint64_t used_ = 0;            // bytes of segment_ written
    uint64_t not_written_ = 0;
    bool closed_ = false;
    bool failed_ = false;  // no file could be made: every later record is counted, not tried
};

// The process's writer (the injected library's and the fake producer's).
RecordWriter& process_writer();

}  // namespace xfer::watch
