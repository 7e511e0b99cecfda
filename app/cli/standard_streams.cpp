#include "cli/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "run/exit_codes.hpp"

namespace xfer {

namespace {

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// Why stdout lost what was written: the flush's own errno, else what a write of nothing says
// now (EBADF on a closed descriptor); a full device answers an empty write with success, and an
// earlier failed write's reason is gone by then.
std::string stdout_failure(int flush_errno) {
    int err = flush_errno;
    if (err == 0 && ::write(STDOUT_FILENO, "", 0) < 0) err = errno;
    if (err == EBADF) return "stdout is closed";
    if (err == 0) return "a write to it failed";
    return std::strerror(err);
}

}  // namespace

void hold_closed_standard_fds() {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (is_open(fd)) continue;
        // The lowest free number is `fd` itself: every one below it is open by now.
        const int held = ::open("/dev/null", O_RDONLY);
        if (held >= 0 && held != fd) {
            ::dup2(held, fd);
            ::close(held);
        }
    }
}

int exit_code_after_stdout(int code) {
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int flush_errno = flushed ? 0 : errno;
    if (flushed && std::cout.good() && !std::ferror(stdout)) return code;
    std::cerr << "xferlab: what this command printed could not be written to stdout ("
              << stdout_failure(flush_errno) << ")\n";
    std::cerr.flush();
    return code == exit_ok ? exit_run_failed : code;
}

}  // namespace xfer
