#include "watch/record_writer.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xfer::watch {
namespace {

int64_t clock_ns(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void atfork_prepare() { process_writer().before_fork(); }
void atfork_parent() { process_writer().after_fork_parent(); }
void atfork_child() { process_writer().after_fork_child(); }

}  // namespace

RecordWriter& process_writer() {
    // Leaked: CUPTI may deliver records while the process exits, after static destructors ran.
    static RecordWriter* w = new RecordWriter;
    return *w;
}

RecordWriter::~RecordWriter() { close(); }

std::string RecordWriter::open(const std::string& dir, bool create_now) {
    std::lock_guard lock(mutex_);
    if (dir.empty()) return "no folder named for the records";
    dir_ = dir;
    closed_ = failed_ = false;
    if (this == &process_writer()) {
        static const bool hooked = pthread_atfork(atfork_prepare, atfork_parent, atfork_child) == 0;
        (void)hooked;
    }
    if (create_now && !ensure_file_locked()) return "cannot create a record file in " + dir;
    return "";
}

std::string RecordWriter::path() const {
    std::lock_guard lock(const_cast<std::mutex&>(mutex_));
    return path_;
}

bool RecordWriter::ensure_file_locked() {
    if (fd_ >= 0) return true;
    if (failed_ || closed_ || dir_.empty()) return false;
    const int pid = int(getpid());
    // <pid>.xwatch, or <pid>-2.xwatch, ... where a process of the same number (pid reuse, a
    // container's pid namespace) left one.
    for (int n = 1; n < 100 && fd_ < 0; ++n) {
        std::string p = dir_ + "/" + std::to_string(pid);
        if (n > 1) p += "-" + std::to_string(n);
        p += XW_FILE_SUFFIX;
        fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd_ >= 0)
            path_ = p;
        else if (errno != EEXIST)
            break;
    }
    if (fd_ < 0) {
        failed_ = true;
        return false;
    }
    owner_pid_ = pid;
    segment_offset_ = 0;
    used_ = 0;
    if (!next_segment_locked()) return false;
    xw_header h{};
    std::memcpy(h.magic, XW_MAGIC, sizeof h.magic);
    h.version = XW_VERSION;
    h.record_bytes = XW_RECORD_BYTES;
    h.pid = pid;
    h.ppid = int(getppid());
    h.start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
    h.start_realtime_ns = clock_ns(CLOCK_REALTIME);
    std::memcpy(segment_, &h, sizeof h);
    used_ = sizeof h;
    return true;
}

// Reserves the next segment on disk, then maps it: a full disk is found here, as an error,
// rather than as SIGBUS on a store into a mapped hole.
bool RecordWriter::next_segment_locked() {
    const uint64_t offset = segment_ ? segment_offset_ + kSegmentBytes : segment_offset_;
    unmap_locked();
    if (posix_fallocate(fd_, off_t(offset), off_t(kSegmentBytes)) != 0) {
        failed_ = true;
        return false;
    }
    void* p = mmap(nullptr, kSegmentBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(offset));
    if (p == MAP_FAILED) {
        failed_ = true;
        return false;
    }
    segment_ = static_cast<char*>(p);
    segment_offset_ = offset;
    used_ = 0;
    return true;
}

void RecordWriter::unmap_locked() {
    if (segment_) munmap(segment_, kSegmentBytes);
    segment_ = nullptr;
}

bool RecordWriter::write(xw_type type, xw_record& r) {
    std::lock_guard lock(mutex_);
    if (failed_ || !ensure_file_locked() ||
        (used_ + XW_RECORD_BYTES > kSegmentBytes && !next_segment_locked())) {
        ++not_written_;
        return false;
    }
    char* slot = segment_ + used_;
    std::memcpy(slot + sizeof r.commit, reinterpret_cast<const char*>(&r) + sizeof r.commit,
                XW_RECORD_BYTES - sizeof r.commit);
    // Last, so that a reader never takes a half-written slot for a record.
    __atomic_store_n(reinterpret_cast<uint32_t*>(slot), (XW_COMMIT << 16) | uint32_t(type),
                     __ATOMIC_RELEASE);
    used_ += XW_RECORD_BYTES;
    return true;
}

void RecordWriter::close() {
    std::lock_guard lock(mutex_);
    unmap_locked();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    closed_ = true;
}

void RecordWriter::before_fork() { mutex_.lock(); }
void RecordWriter::after_fork_parent() { mutex_.unlock(); }

void RecordWriter::after_fork_child() {
    // The mapping and the descriptor are the parent's: drop them (the parent's file is left as
    // it is) and start this process's own file at its first record.
    if (segment_) munmap(segment_, kSegmentBytes);
    segment_ = nullptr;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    path_.clear();
    used_ = 0;
    segment_offset_ = 0;
    owner_pid_ = 0;
    mutex_.unlock();
}

}  // namespace xfer::watch
