#include "util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/format.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

// What a file of `mode` is, as the refusal says it; "" for a regular file.
std::string kind_refused(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "it is a folder, not a file";
    if (S_ISFIFO(mode))
        return "it is a FIFO (named pipe), not a regular file: xferlab reads only regular files "
               "(a FIFO waits for a writer, and may never end)";
    if (S_ISCHR(mode))
        return "it is a character device, not a regular file: xferlab reads only regular files "
               "(a device such as /dev/zero never ends)";
    if (S_ISBLK(mode))
        return "it is a block device, not a regular file: xferlab reads only regular files";
    if (S_ISSOCK(mode))
        return "it is a socket, not a regular file: xferlab reads only regular files";
    return "it is not a regular file: xferlab reads only regular files";
}

std::string cannot_read(int error) { return std::strerror(error); }

}  // namespace

std::string not_regular_file(const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return cannot_read(errno);
    return kind_refused(st.st_mode);
}

int open_regular_file(const fs::path& path, std::string& why) {
    // A device is never opened (opening some has effects); a FIFO put in its place after the
    // stat opens at once with O_NONBLOCK and is refused by the fstat below.
    why = not_regular_file(path);
    if (!why.empty()) return -1;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        why = cannot_read(errno);
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        why = cannot_read(errno);
    } else {
        why = kind_refused(st.st_mode);
    }
    if (!why.empty()) {
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

std::optional<std::string> read_input_file(const fs::path& path, uint64_t max_bytes,
                                           std::string& why) {
    const int fd = open_regular_file(path, why);
    if (fd < 0) return std::nullopt;
    auto too_large = [&](uint64_t bytes, bool at_least) {
        why = "it is " + std::string(at_least ? "more than " : "") + format_size(bytes) +
              ", more than the " + format_size(max_bytes) + " xferlab reads from such a file";
        ::close(fd);
        return std::nullopt;
    };
    struct stat st {};
    if (::fstat(fd, &st) == 0 && uint64_t(st.st_size) > max_bytes)
        return too_large(uint64_t(st.st_size), false);
    std::string text;
    text.reserve(size_t(st.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            why = cannot_read(errno);
            ::close(fd);
            return std::nullopt;
        }
        // A file that grows while it is read is cut off at the bound all the same.
        if (text.size() + size_t(n) > max_bytes) return too_large(max_bytes, true);
        text.append(buffer, size_t(n));
    }
    ::close(fd);
    return text;
}

}  // namespace xfer
