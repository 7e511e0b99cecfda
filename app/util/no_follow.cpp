#include "util/no_follow.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xfer {
namespace fs = std::filesystem;
namespace {

constexpr const char* kNeverThrough =
    ": xferlab never writes through a link in a folder it writes into; remove it";
constexpr const char* kOwnFile = ": xferlab writes a regular file of its own there; remove it";

std::string link_target(const fs::path& path) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    return ec ? std::string("?") : target.string();
}

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a regular file";
}

// What the open file `st` describes is not a plain file of one name.
std::string problem_of(const fs::path& path, const struct stat& st) {
    if (S_ISLNK(st.st_mode))
        return path.string() + " is a symbolic link (to " + link_target(path) + ")" + kNeverThrough;
    if (!S_ISREG(st.st_mode)) return path.string() + " is " + kind_of(st.st_mode) + kOwnFile;
    if (st.st_nlink > 1)
        return path.string() + " has another name (a hard link: " + std::to_string(st.st_nlink) +
               " names)" + kNeverThrough;
    return "";
}

}  // namespace

std::string not_a_plain_file(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return "";
    return problem_of(path, st);
}

OpenedNoFollow open_no_follow(const fs::path& path, int flags, mode_t mode) {
    OpenedNoFollow out;
    out.fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
    if (out.fd < 0) {
        out.error = errno;
        // ELOOP: the last component is a link. EEXIST (O_EXCL): something is there already.
        if (out.error == ELOOP || out.error == EEXIST) out.planted = not_a_plain_file(path);
        return out;
    }
    struct stat st {};
    if (::fstat(out.fd, &st) == 0) out.planted = problem_of(path, st);
    if (!out.planted.empty()) {
        ::close(out.fd);
        out.fd = -1;
        out.error = EPERM;
        return out;
    }
    // O_NONBLOCK only kept a planted FIFO from blocking the open; a regular file ignores it,
    // but the descriptor is left as the caller asked for it.
    ::fcntl(out.fd, F_SETFL, ::fcntl(out.fd, F_GETFL) & ~O_NONBLOCK);
    return out;
}

std::string open_failure(const fs::path& path, const OpenedNoFollow& opened) {
    if (!opened.planted.empty()) return opened.planted;
    return "cannot open " + path.string() + ": " + std::strerror(opened.error) +
           (opened.error == EEXIST ? " (xferlab creates it, and found it there)" : "");
}

}  // namespace xfer
