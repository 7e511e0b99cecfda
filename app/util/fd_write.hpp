#pragma once
// Writing a whole buffer to a file descriptor and making it durable, with the error as a value:
// the callers decide what a failure undoes (a torn journal line cut back, a probe removed).
#include <string_view>

namespace xfer {

// Writes all of `data` to `fd` (continuing short writes, retrying EINTR), then fsyncs it: a
// full disk may show only when the blocks are allocated. Returns 0, or the errno that stopped
// it (ENOSPC for a write that moved nothing).
int write_all_durably(int fd, std::string_view data);

}  // namespace xfer
