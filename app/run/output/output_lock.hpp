#pragma once
// One results folder, one `xferlab run`: an exclusive flock on DIR/.xferlab.lock, taken before
// the folder is checked for earlier output and held until the run's last file is written, so
// that two runs started at once can never both decide the folder is theirs and mix their lines
// in one journal. The lock dies with the process (a SIGKILL leaves no stale lock, only the file,
// which the next owner reuses); worker processes never inherit it (close-on-exec).
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace xfer {

inline constexpr const char* kOutputLockFile = ".xferlab.lock";

class OutputLock;
// `dir` checked (output_folder_problem), created (`created` says whether it was) and locked:
// the lock, or nothing when another run holds the folder, after saying so on stderr unless
// `quiet_busy`. Throws std::runtime_error naming the folder where it cannot be used. What the
// folder may already hold is the caller's question (run and watch answer it differently).
std::optional<OutputLock> create_and_lock(const std::filesystem::path& dir, bool quiet_busy,
                                          bool& created);

class OutputLock {
  public:
    // The lock on `dir` (which must exist), or nothing when another process holds it; then
    // `owner` says which ("pid 4711"; "" when it did not write its pid in time). Throws
    // std::runtime_error naming the folder when the lock file cannot be created or locked.
    static std::optional<OutputLock> try_take(const std::filesystem::path& dir, std::string& owner);

    OutputLock(OutputLock&& other) noexcept;
    OutputLock& operator=(OutputLock&& other) noexcept;
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    // Removes the lock file, then releases the lock.
    ~OutputLock();

    const std::filesystem::path& dir() const { return dir_; }

    // Whether this run still holds its folder after code it does not control ran in the
    // process (a payload): "" when it does. The folder is held open from try_take on, so its
    // path can be compared with it: a folder moved, removed or replaced since (the path names
    // another folder, or none) is not written into, and the problem says so. A descriptor the
    // payload closed (os.closerange(3, 1024)) is opened again, and the lock, which the kernel
    // dropped with it, taken again where no other run took the folder meanwhile. A descriptor
    // that is no longer this lock's is never closed by its number.
    std::string check();

  private:
    struct FileId {
        dev_t dev = 0;
        ino_t ino = 0;
    };
    OutputLock(std::filesystem::path dir, int fd, int dir_fd);
    bool holds_lock_file() const;
    void release();

    std::filesystem::path dir_;
    int fd_ = -1;      // the lock file, flocked
    int dir_fd_ = -1;  // the folder itself (O_DIRECTORY): its inode cannot be reused meanwhile
    FileId lock_id_, dir_id_;
};

}  // namespace xfer
