// The host backend: bytes arrive, verification catches what it must, directions and memory
// kinds it cannot model are refused, and the first-touch policy decides which thread faults
// the destination's pages in (observed with mincore, not assumed).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "backend/host_backend.hpp"
#include "memory/host_buffer.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

TransferSpec spec(uint64_t bytes, FirstTouch touch = FirstTouch::worker,
                  Direction d = Direction::h2d, HostMemoryKind kind = HostMemoryKind::pageable) {
    TransferSpec t;
    t.bytes = bytes;
    t.first_touch = touch;
    t.direction = d;
    t.host_memory = {kind, -1};
    return t;
}

// Why the host backend (asked for) refuses `t`; "" when it runs it.
std::string check_error(const TransferSpec& t) {
    const RunHere here = make_host_backend()->can_run(t, 1);
    CHECK_FALSE(here.skipped());
    return here.reason;
}

// Pages of [p, p + n) resident in memory, by mincore.
uint64_t resident_pages(const void* p, uint64_t n) {
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    uintptr_t start = reinterpret_cast<uintptr_t>(p) / page * page;
    uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n + page - 1) / page * page;
    std::vector<unsigned char> vec((end - start) / page);
    REQUIRE(mincore(reinterpret_cast<void*>(start), end - start, vec.data()) == 0);
    uint64_t resident = 0;
    for (unsigned char v : vec) resident += v & 1;
    return resident;
}

// Above glibc's largest mmap threshold (32 MiB), so malloc maps fresh pages for it whatever
// earlier tests freed: untouched pages are then really not resident.
constexpr uint64_t kFresh = 40ull << 20;

// Whether this process's calloc hands out a fresh kFresh block with no page resident. glibc's
// does; ThreadSanitizer's zeroes every block it returns (its allocator recycles memory), which
// touches every page. Where it does not hold, no buffer can be untouched before its first
// touch, and the "nothing resident yet" checks below have nothing to observe.
bool calloc_leaves_pages_untouched() {
    void* p = std::calloc(1, kFresh);
    REQUIRE(p != nullptr);
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    // The whole pages inside the block (its header may share the first one).
    const uintptr_t first = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
    const bool untouched = resident_pages(reinterpret_cast<void*>(first), kFresh - page) == 0;
    std::free(p);
    if (!untouched) WARN("calloc touches the pages it returns here (a sanitizer's allocator?)");
    return untouched;
}

// Pages the buffer's bytes lie on, whole pages only (the count every touch must reach).
uint64_t whole_pages(const HostBuffer& b) { return b.size() / uint64_t(sysconf(_SC_PAGESIZE)); }

}  // namespace

TEST_CASE("copies arrive and verify, and a planted corruption is found at its offset", "[backend]") {
    auto backend = make_host_backend();
    auto t = backend->prepare(spec(1 << 20), 3);
    t->attach_thread();
    t->copy();
    CHECK(t->verify() == -1);
    t->corrupt_destination_for_test(12345);
    CHECK(t->verify() == 12345);
    t->copy();
    CHECK(t->verify() == -1);
    t->poison_destination();
    CHECK(t->verify() == 0);
    CHECK(t->bytes() == (1u << 20));
    CHECK(t->device() == -1);
}

TEST_CASE("a destination no copy reached does not verify", "[backend]") {
    for (FirstTouch ft : {FirstTouch::worker, FirstTouch::main, FirstTouch::none}) {
        auto t = make_host_backend()->prepare(spec(64 << 10, ft), 0);
        t->poison_destination();
        t->attach_thread();
        CHECK(t->verify() == 0);
    }
}

TEST_CASE("every host direction and memory kind copies the worker's pattern", "[backend]") {
    auto backend = make_host_backend();
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::h2h}) {
        for (HostMemoryKind k : {HostMemoryKind::pageable, HostMemoryKind::hugepage}) {
            auto t = backend->prepare(spec((3 << 20) + 5, FirstTouch::main, d, k), 7);
            t->poison_destination();
            t->attach_thread();
            t->copy();
            CHECK(t->verify() == -1);
        }
    }
}

TEST_CASE("what only the cuda backend runs is named once, with its setting and value",
          "[backend]") {
    CHECK(host_needs_cuda(spec(4096, FirstTouch::worker, Direction::d2d)) ==
          "transfer.direction = \"d2d\" needs the cuda backend (device memory on both sides)");
    CHECK(host_needs_cuda(spec(4096, FirstTouch::worker, Direction::p2p)) ==
          "transfer.direction = \"p2p\" needs the cuda backend (copies between two devices)");
    CHECK(host_needs_cuda(spec(4096, FirstTouch::worker, Direction::h2d, HostMemoryKind::pinned)) ==
          "transfer.host_memory = \"pinned\" needs the cuda backend (page-locked memory is "
          "allocated by CUDA)");
    CHECK(host_needs_cuda(
              spec(4096, FirstTouch::worker, Direction::d2h, HostMemoryKind::write_combined))
              .rfind("transfer.host_memory = \"write-combined\" needs the cuda backend", 0) == 0);
    TransferSpec devices = spec(4096);
    devices.devices = {0, 1};
    CHECK(host_needs_cuda(devices) ==
          "transfer.devices = [0, 1] needs the cuda backend (device 1; the host backend stands in "
          "for one device, 0)");
    devices.devices = {0, 0};
    CHECK(host_needs_cuda(devices).empty());
    TransferSpec context = spec(4096);
    context.context = ContextKind::per_worker;
    CHECK(host_needs_cuda(context) ==
          "transfer.context = \"per-worker\" needs the cuda backend (a CUDA context per worker)");
    TransferSpec path = spec(4096);
    path.path = CopyPath::register_;
    CHECK(host_needs_cuda(path).rfind("transfer.path = \"register\" needs the cuda backend (", 0) ==
          0);
    // One reason however many settings need CUDA: the first of direction, devices, memory,
    // context, path.
    context.host_memory = {HostMemoryKind::pinned, -1};
    context.path = CopyPath::staged;
    CHECK(host_needs_cuda(context).rfind("transfer.host_memory = \"pinned\"", 0) == 0);
    CHECK(host_needs_cuda(spec(4096)).empty());
    CHECK(host_needs_cuda(spec(4096, FirstTouch::worker, Direction::h2h, HostMemoryKind::hugepage))
              .empty());
}

TEST_CASE("what the host cannot model is refused with the reason", "[backend]") {
    // Asked for the host backend: the same reason, and what to ask for instead.
    const TransferSpec pinned =
        spec(4096, FirstTouch::worker, Direction::h2d, HostMemoryKind::pinned);
    CHECK(check_error(pinned) == host_needs_cuda(pinned) +
                                     "; this run's backend is host (use backend = \"cuda\", or "
                                     "\"auto\" to skip such runs where CUDA is unavailable)");
    for (Direction d : {Direction::d2d, Direction::p2p}) {
        const TransferSpec t = spec(4096, FirstTouch::worker, d);
        CHECK(check_error(t).rfind(host_needs_cuda(t) + "; this run's backend is host", 0) == 0);
    }
    TransferSpec numa = spec(4096);
    numa.host_memory = {HostMemoryKind::numa, 999};
    CHECK(check_error(numa).rfind("numa:999: ", 0) == 0);
    CHECK(check_error(spec(4096)).empty());
    CHECK_THROWS_AS(make_host_backend()->prepare(spec(4096, FirstTouch::worker, Direction::d2d), 0),
                    std::runtime_error);
}

TEST_CASE("memory_needed counts source and destination of every worker", "[backend]") {
    auto backend = make_host_backend();
    const uint64_t base = base_page_size();
    // Pageable buffers: the bytes plus one page each for their page alignment.
    CHECK(backend->memory_needed(spec(64 << 20), 4).host_bytes == 2ull * ((64 << 20) + base) * 4);
    CHECK(backend->memory_needed(spec(64 << 20), 4).device_bytes == 0);
    // h2d hugepage: the source rounds up to huge pages, the pageable stand-in to base pages.
    const uint64_t huge = host_page_size({HostMemoryKind::hugepage, -1});
    auto need = backend->memory_needed(
        spec(huge + 1, FirstTouch::worker, Direction::h2d, HostMemoryKind::hugepage), 2);
    CHECK(need.host_bytes == 2 * (2 * huge + (huge + base) + base));
}

TEST_CASE("describe names the host backend", "[backend]") {
    auto d = make_host_backend()->describe();
    CHECK(d.at("name") == "host");
    CHECK(d.at("page_size").get<uint64_t>() == base_page_size());
}

TEST_CASE("first_touch = worker: pages are faulted in by attach_thread, not by prepare",
          "[backend]") {
    auto t = make_host_backend()->prepare(spec(kFresh, FirstTouch::worker), 1);
    const HostBuffer* src = host_source(*t);
    const HostBuffer* dst = host_destination(*t);
    REQUIRE(src != nullptr);
    REQUIRE(dst != nullptr);
    const uint64_t all = whole_pages(*dst);
    // Not one page is resident before the worker runs (malloc's header sits in the page
    // before the page-aligned data).
    t->poison_destination();
    if (calloc_leaves_pages_untouched()) {
        CHECK(resident_pages(dst->data(), dst->size()) == 0);
        CHECK(resident_pages(src->data(), src->size()) == 0);
    }
    std::thread([&] { t->attach_thread(); }).join();
    CHECK(resident_pages(dst->data(), dst->size()) >= all);
    CHECK(resident_pages(src->data(), src->size()) >= all);
}

TEST_CASE("first_touch = main: prepare faults every page in", "[backend]") {
    auto t = make_host_backend()->prepare(spec(kFresh, FirstTouch::main), 1);
    const HostBuffer* dst = host_destination(*t);
    const HostBuffer* src = host_source(*t);
    CHECK(resident_pages(dst->data(), dst->size()) >= whole_pages(*dst));
    CHECK(resident_pages(src->data(), src->size()) >= whole_pages(*src));
}

TEST_CASE("first_touch = none: the first copy is what faults the destination in", "[backend]") {
    auto t = make_host_backend()->prepare(spec(kFresh, FirstTouch::none), 1);
    const HostBuffer* dst = host_destination(*t);
    t->poison_destination();
    t->attach_thread();
    if (calloc_leaves_pages_untouched()) CHECK(resident_pages(dst->data(), dst->size()) == 0);
    t->copy();
    CHECK(resident_pages(dst->data(), dst->size()) >= whole_pages(*dst));
    CHECK(t->verify() == -1);
}
