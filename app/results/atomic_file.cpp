#include "results/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#include "util/no_follow.hpp"

namespace xfer {

namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p, int err) {
    throw std::system_error(err, std::generic_category(), what + " " + p.string());
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    namespace fs = std::filesystem;
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    fs::create_directories(dir);
    // Same directory: rename() is atomic only within one file system.
    const fs::path tmp =
        dir / ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()));

    // Created here, exclusively and not through a link: a file under the name is a leftover of
    // a killed process of this pid (or planted), and only the name is removed, never followed.
    OpenedNoFollow opened = open_no_follow(tmp, O_WRONLY | O_CREAT | O_EXCL);
    if (opened.error == EEXIST && ::unlink(tmp.c_str()) == 0)
        opened = open_no_follow(tmp, O_WRONLY | O_CREAT | O_EXCL);
    if (opened.fd < 0) throw std::runtime_error(open_failure(tmp, opened));
    const int fd = opened.fd;
    size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            fail("cannot write", tmp, err);
        }
        done += size_t(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail("cannot flush", tmp, err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail("cannot rename onto", path, err);
    }
    // Make the rename itself durable; a failure here loses nothing already written.
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace xfer
