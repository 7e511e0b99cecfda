#include "util/fd_write.hpp"

#include <unistd.h>

#include <cerrno>

namespace xfer {

int write_all_durably(int fd, std::string_view data) {
    for (size_t done = 0; done < data.size();) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n > 0)
            done += size_t(n);
        else if (n == 0)
            return ENOSPC;
        else if (errno != EINTR)
            return errno;
    }
    return ::fsync(fd) != 0 ? errno : 0;
}

}  // namespace xfer
