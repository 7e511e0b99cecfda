#pragma once
// One results folder, one `xferlab run`: an exclusive flock on DIR/.xferlab.lock, taken before
// the folder is checked for earlier output and held until the run's last file is written, so
// that two runs started at once can never both decide the folder is theirs and mix their lines
// in one journal. The lock dies with the process (a SIGKILL leaves no stale lock, only the file,
// which the next owner reuses); worker processes never inherit it (close-on-exec).
#include <filesystem>
#include <optional>
#include <string>

namespace xfer {

inline constexpr const char* kOutputLockFile = ".xferlab.lock";

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

  private:
    OutputLock(std::filesystem::path dir, int fd) : dir_(std::move(dir)), fd_(fd) {}
    void release();

    std::filesystem::path dir_;
    int fd_ = -1;
};

}  // namespace xfer
