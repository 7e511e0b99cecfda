#include "backend/transfer_path.hpp"

#include <stdexcept>
#include <string>

#include "memory/host_buffer.hpp"
#include "util/format.hpp"

namespace xfer {

void check_transfer_path(const TransferSpec& t) {
    if (t.path == CopyPath::driver) return;
    const std::string path = "transfer.path = \"" + to_string(t.path) + "\"";
    if (t.direction != Direction::h2d && t.direction != Direction::d2h)
        throw std::runtime_error(path +
                                 " moves host memory to or from a device (direction = "
                                 "\"h2d\" or \"d2h\"); direction = \"" +
                                 to_string(t.direction) + "\" has no host side to " +
                                 (t.path == CopyPath::staged ? "stage" : "register"));
    if (t.path == CopyPath::register_ && is_page_locked(t.host_memory.kind))
        throw std::runtime_error(path + " registers pageable memory; host_memory = \"" +
                                 to_string(t.host_memory) +
                                 "\" is page-locked already (use host_memory = " +
                                 quoted_value(HostMemoryKind::pageable) + ")");
    if (t.path == CopyPath::staged && t.context == ContextKind::per_worker)
        throw std::runtime_error(path +
                                 " shares one engine per device among the process's "
                                 "workers, in the device's primary context; context = " +
                                 quoted_value(ContextKind::per_worker) +
                                 " cannot be combined with it");
    if (t.path == CopyPath::staged && t.staging.chunk > t.bytes)
        throw std::runtime_error(
            "staging.chunk = " + format_size(t.staging.chunk) +
            " is larger than the copy (transfer.bytes = " + format_size(t.bytes) +
            "): lower staging.chunk, or leave it \"auto\"");
}

}  // namespace xfer
