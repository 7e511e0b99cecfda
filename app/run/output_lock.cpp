#include "run/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

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

}  // namespace

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
        return OutputLock(dir, fd);
    }
}

OutputLock::OutputLock(OutputLock&& other) noexcept : dir_(std::move(other.dir_)), fd_(other.fd_) {
    other.fd_ = -1;
}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
    if (this != &other) {
        release();
        dir_ = std::move(other.dir_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
    if (fd_ < 0) return;
    // Removed while still locked: a run waiting to lock the old file finds it gone and
    // creates a new one (still_named), instead of two runs holding locks on two files.
    ::unlink((dir_ / kOutputLockFile).c_str());
    ::close(fd_);
    fd_ = -1;
}

}  // namespace xfer
