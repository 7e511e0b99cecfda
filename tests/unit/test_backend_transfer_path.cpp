// transfer.path against the rest of the transfer: every refusal names what does not fit and
// what to do instead. (The CUDA backend's check calls this; no device is needed here.)
#include <stdexcept>
#include <string>

#include "backend/transfer_path.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

std::string refusal(const TransferSpec& t) {
    try {
        check_transfer_path(t);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

TransferSpec spec(CopyPath path) {
    TransferSpec t;
    t.path = path;
    t.bytes = uint64_t(4) << 20;
    return t;
}

}  // namespace

TEST_CASE("transfer.path: what each path cannot be combined with is refused with the reason",
          "[backend][staging]") {
    CHECK(refusal(spec(CopyPath::driver)).empty());
    CHECK(refusal(spec(CopyPath::staged)).empty());
    CHECK(refusal(spec(CopyPath::register_)).empty());

    TransferSpec d2d = spec(CopyPath::staged);
    d2d.direction = Direction::d2d;
    CHECK(refusal(d2d) ==
          "transfer.path = \"staged\" moves host memory to or from a device (direction = \"h2d\" "
          "or \"d2h\"); direction = \"d2d\" has no host side to stage");

    TransferSpec pinned = spec(CopyPath::register_);
    pinned.host_memory.kind = HostMemoryKind::pinned;
    CHECK(refusal(pinned) ==
          "transfer.path = \"register\" registers pageable memory; host_memory = \"pinned\" is "
          "page-locked already (use host_memory = \"pageable\")");

    TransferSpec per_worker = spec(CopyPath::staged);
    per_worker.context = ContextKind::per_worker;
    CHECK(contains(refusal(per_worker), "context = \"per-worker\" cannot be combined with it"));

    TransferSpec big_chunk = spec(CopyPath::staged);
    big_chunk.staging.chunk = uint64_t(8) << 20;
    CHECK(refusal(big_chunk) ==
          "staging.chunk = 8 MiB is larger than the copy (transfer.bytes = 4 MiB): lower "
          "staging.chunk, or leave it \"auto\"");
    big_chunk.staging.chunk = 0;  // "auto": clamped to the copy, never refused
    CHECK(refusal(big_chunk).empty());
}
