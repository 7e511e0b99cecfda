#include "run/output/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "run/output/output_dir.hpp"
#include "util/no_follow.hpp"

namespace xfer {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path, int err) {
    throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(err));
}

// The pid the owner wrote into the lock file, as "pid 4711". The owner writes it right after
// taking the lock, so a run that finds the lock taken an instant earlier waits for it a little
// (at most 100 ms); "" when it never came.
std::string owner_of(int fd) {
    for (int tries = 0; tries < 20; ++tries) {
        char text[32] = {};
        const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
        const long pid = n > 0 ? std::strtol(text, nullptr, 10) : 0;
        if (pid > 0) return "pid " + std::to_string(pid);
        ::usleep(5000);
    }
    return "";
}

// True when `path` still names the file open as `fd`: the owner before us removes the file
// when it ends, so a lock taken on a file opened just before that removal guards nothing.
bool still_named(int fd, const fs::path& path) {
    struct stat open_file {
    }, named{};
    return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 &&
           open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

// Whether `fd` is open on the file `dev`/`ino` (false for a closed descriptor).
bool open_on(int fd, dev_t dev, ino_t ino) {
    struct stat st {};
    return fd >= 0 && ::fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

}  // namespace

OutputLock::OutputLock(fs::path dir, int fd, int dir_fd)
    : dir_(std::move(dir)), fd_(fd), dir_fd_(dir_fd) {
    struct stat st {};
    if (::fstat(fd_, &st) == 0) lock_id_ = {st.st_dev, st.st_ino};
    if (::fstat(dir_fd_, &st) == 0) dir_id_ = {st.st_dev, st.st_ino};
}

bool OutputLock::holds_lock_file() const { return open_on(fd_, lock_id_.dev, lock_id_.ino); }

std::string OutputLock::check() {
    struct stat st {};
    if (::stat(dir_.c_str(), &st) != 0 || st.st_dev != dir_id_.dev || st.st_ino != dir_id_.ino)
        return "output folder " + dir_.string() +
               " is no longer the folder this run locked: it was moved, removed or replaced "
               "while the plan ran, so nothing more is written under that name";
    if (!open_on(dir_fd_, dir_id_.dev, dir_id_.ino))  // closed by the payload: held again
        dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    // Locking a file this process has locked through the same descriptor succeeds again.
    if (holds_lock_file() && ::flock(fd_, LOCK_EX | LOCK_NB) == 0) return "";
    fd_ =
        -1;  // closed by the payload, the kernel dropping the lock with it; the number is not ours
    std::string owner;
    std::optional<OutputLock> again;
    try {
        again = try_take(dir_, owner);
    } catch (const std::exception& e) {
        return "output folder " + dir_.string() +
               ": its lock was lost (a payload closed its "
               "descriptor) and cannot be taken again: " +
               e.what();
    }
    if (!again)
        return "output folder " + dir_.string() +
               ": its lock was lost (a payload closed its "
               "descriptor) and another xferlab run" +
               (owner.empty() ? "" : " (" + owner + ")") + " took the folder meanwhile";
    std::swap(fd_, again->fd_);  // `again` lets go of nothing: its descriptors are ours now
    lock_id_ = again->lock_id_;
    std::swap(dir_fd_, again->dir_fd_);
    return "";
}

std::optional<OutputLock> OutputLock::try_take(const fs::path& dir, std::string& owner) {
    const fs::path path = dir / kOutputLockFile;
    for (;;) {
        // Not O_EXCL: a lock file left by a killed run is taken over (the flock is the lock).
        const OpenedNoFollow opened = open_no_follow(path, O_RDWR | O_CREAT);
        if (!opened.planted.empty()) throw std::runtime_error(opened.planted);
        if (opened.fd < 0)
            throw std::runtime_error("output folder " + dir.string() +
                                     " is not writable: " + std::strerror(opened.error) +
                                     " (creating its lock file " + kOutputLockFile + ")");
        const int fd = opened.fd;
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err == EWOULDBLOCK) owner = owner_of(fd);
            ::close(fd);
            if (err == EWOULDBLOCK) return std::nullopt;
            fail("cannot lock", path, err);
        }
        if (!still_named(fd, path)) {  // removed by the owner that just ended: start over
            ::close(fd);
            continue;
        }
        // The pid is for a second run's message only: the flock is the lock, so a full disk
        // that keeps the pid from being written costs nothing else.
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
        const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0) {
            const int err = errno;
            ::close(fd);
            fail("cannot open", dir, err);
        }
        return OutputLock(dir, fd, dir_fd);
    }
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : dir_(std::move(other.dir_)),
      fd_(std::exchange(other.fd_, -1)),
      dir_fd_(std::exchange(other.dir_fd_, -1)),
      lock_id_(other.lock_id_),
      dir_id_(other.dir_id_) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
    if (this != &other) {
        release();
        dir_ = std::move(other.dir_);
        fd_ = std::exchange(other.fd_, -1);
        dir_fd_ = std::exchange(other.dir_fd_, -1);
        lock_id_ = other.lock_id_;
        dir_id_ = other.dir_id_;
    }
    return *this;
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
    // A descriptor a payload closed may have been reused for another file by now: only what is
    // still this lock's is used or closed.
    const bool folder_held = open_on(dir_fd_, dir_id_.dev, dir_id_.ino);
    if (holds_lock_file()) {
        // Removed while still locked: a run waiting to lock the old file finds it gone and
        // creates a new one (still_named), instead of two runs holding locks on two files.
        // Through the folder held open: where it was moved to, the lock file went with it.
        if (folder_held) ::unlinkat(dir_fd_, kOutputLockFile, 0);
        ::close(fd_);
    }
    if (folder_held) ::close(dir_fd_);
    fd_ = -1;
    dir_fd_ = -1;
}

std::optional<OutputLock> create_and_lock(const std::filesystem::path& dir, bool quiet_busy,
                                          bool& created) {
    if (const std::string problem = output_folder_problem(dir); !problem.empty())
        throw std::runtime_error(problem);
    std::error_code ec;
    created = std::filesystem::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error("cannot create output folder " + dir.string() + ": " +
                                 ec.message());
    std::string owner;
    auto lock = OutputLock::try_take(dir, owner);
    if (!lock && !quiet_busy)
        std::cerr << fmt::format(
            "xferlab: output folder {} is in use by another xferlab run{}: two runs in one "
            "folder would mix their results. Choose another folder, or wait for that run\n",
            dir.string(), owner.empty() ? "" : " (" + owner + ")");
    return lock;
}

}  // namespace xfer
