#include "system/stream_readers.hpp"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xfer {
namespace {

bool reader_gone(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return false;
    // No event asked for: POLLERR (a pipe without readers) and POLLHUP come regardless.
    pollfd p{fd, 0, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

}  // namespace

std::string standard_stream_without_reader() {
    if (reader_gone(STDERR_FILENO)) return "stderr";
    if (reader_gone(STDOUT_FILENO)) return "stdout";
    return "";
}

}  // namespace xfer
