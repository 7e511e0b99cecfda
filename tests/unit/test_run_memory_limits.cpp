// The memory budget read from fake /proc and cgroup files: which limit binds, what it leaves,
// and that a parent cgroup's limit binds its children; then --fit's copy size against fake
// budgets (4 GiB, 1 GiB, 100 MiB free; ulimit -v; a cgroup memory.max).
#include <filesystem>
#include <fstream>
#include <string>

#include "run/sizing/memory_fit.hpp"
#include "run/sizing/memory_preflight.hpp"
#include "system/memory_limits.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/run_command.hpp"
#include "support/values.hpp"

using xfer::test::contains;
using xfer::test::GiB;
using xfer::test::MiB;

using namespace xfer;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// A fake machine: /proc files and a cgroup tree under `dir`, no address-space limit unless set.
struct FakeMachine {
    fs::path dir = test::fresh_temp_dir("memlimits");
    MemorySources sources;

    explicit FakeMachine(uint64_t available, uint64_t total = 24 * GiB) {
        write(dir / "meminfo", "MemTotal:       " + std::to_string(total / 1024) +
                                   " kB\nMemFree:        1000 kB\nMemAvailable:   " +
                                   std::to_string(available / 1024) + " kB\n");
        write(dir / "status", "Name:\txferlab\nVmPeak:\t  300000 kB\nVmSize:\t  262144 kB\n");
        write(dir / "cgroup", "0::/\n");
        sources = {dir / "meminfo", dir / "status", dir / "cgroup", dir / "sys",
                   kNoAddressSpaceLimit};
        write(dir / "sys" / "cgroup.controllers", "cpu memory\n");
    }
    ~FakeMachine() { fs::remove_all(dir); }
    MemoryBudget budget() const { return read_memory_budget(sources); }
};

// The seed on the host backend: 4 workers, each a source and a destination of `bytes`.
uint64_t seed_need(uint64_t bytes) { return 8 * bytes; }

FitChoice fit_seed(const MemoryBudget& budget) {
    return fit_copy_size({2 * GiB, kFitFloorBytes, seed_need}, budget);
}

}  // namespace

TEST_CASE("MemAvailable alone: it binds and leaves what it says", "[memory][limits]") {
    FakeMachine m(3 * GiB);
    const MemoryBudget b = m.budget();
    REQUIRE(b.limits.size() == 1);
    CHECK(b.left() == 3 * GiB);
    CHECK(b.total() == 24 * GiB);
    CHECK(describe(b.binding()) == "only 3 GiB is free (MemAvailable)");
}

TEST_CASE("ulimit -v leaves the limit less what is already mapped (VmSize)", "[memory][limits]") {
    FakeMachine m(20 * GiB);
    m.sources.address_space_limit = GiB + 256 * MiB;  // VmSize is 256 MiB
    const MemoryBudget b = m.budget();
    CHECK(b.binding().kind == MemoryLimit::Kind::address_space);
    CHECK(b.left() == GiB);
    CHECK(describe(b.binding()) == "the address-space limit (ulimit -v) of 1.25 GiB leaves 1 GiB");
    m.sources.address_space_limit = 100 * MiB;  // less than is mapped: nothing left
    CHECK(m.budget().left() == 0);
}

TEST_CASE("cgroup v2: memory.max less memory.current, inactive page cache left out",
          "[memory][limits]") {
    FakeMachine m(20 * GiB);
    write(m.dir / "cgroup", "0::/box/job\n");
    write(m.dir / "sys/box/job/memory.max", "max\n");
    write(m.dir / "sys/box/job/memory.current", "1073741824\n");
    CHECK(m.budget().limits.size() == 1);  // "max" is no limit

    write(m.dir / "sys/box/job/memory.max", std::to_string(4 * GiB) + "\n");
    write(m.dir / "sys/box/job/memory.stat",
          "anon 1\ninactive_file " + std::to_string(GiB / 2) + "\nactive_file 5\n");
    MemoryBudget b = m.budget();
    REQUIRE(b.binding().kind == MemoryLimit::Kind::cgroup);
    CHECK(b.left() == 4 * GiB - GiB / 2);  // 1 GiB charged, half of it reclaimable cache
    CHECK(b.binding().where == (m.dir / "sys/box/job/memory.max").string());

    // A parent's smaller limit binds the child.
    write(m.dir / "sys/box/memory.max", std::to_string(2 * GiB) + "\n");
    write(m.dir / "sys/box/memory.current", std::to_string(GiB) + "\n");
    b = m.budget();
    CHECK(b.left() == GiB);
    CHECK(describe(b.binding()) == "the cgroup memory limit of 2 GiB (" +
                                       (m.dir / "sys/box/memory.max").string() + ") leaves 1 GiB");
}

TEST_CASE("cgroup v2 under <root>/unified and the v1 memory controller (hybrid hosts)",
          "[memory][limits]") {
    FakeMachine m(20 * GiB);
    fs::remove(m.dir / "sys/cgroup.controllers");
    write(m.dir / "sys/unified/cgroup.controllers", "\n");
    write(m.dir / "sys/unified/job/memory.max", std::to_string(8 * GiB) + "\n");
    write(m.dir / "sys/unified/job/memory.current", "0\n");
    write(m.dir / "cgroup", "4:memory:/v1job\n0::/job\n");
    write(m.dir / "sys/memory/v1job/memory.limit_in_bytes", "9223372036854771712\n");  // none
    CHECK(m.budget().left() == 8 * GiB);

    write(m.dir / "sys/memory/v1job/memory.limit_in_bytes", std::to_string(3 * GiB) + "\n");
    write(m.dir / "sys/memory/v1job/memory.usage_in_bytes", std::to_string(GiB) + "\n");
    write(m.dir / "sys/memory/v1job/memory.stat", "inactive_file 7\ntotal_inactive_file 0\n");
    const MemoryBudget b = m.budget();
    CHECK(b.left() == 2 * GiB);
    CHECK(contains(b.binding().where, "v1job/memory.limit_in_bytes"));
}

TEST_CASE("run --fit: the seed at full size when it fits with headroom", "[memory][fit]") {
    FakeMachine m(22 * GiB);
    const FitChoice c = fit_seed(m.budget());
    CHECK(c.fits);
    CHECK_FALSE(c.reduced);
    CHECK(c.bytes == 2 * GiB);
    CHECK(c.message.empty());
    // 16 GiB of buffers plus headroom do not fit 17 GiB.
    FakeMachine tight(17 * GiB);
    CHECK(fit_seed(tight.budget()).bytes == GiB);
}

TEST_CASE("run --fit: 4 GiB, 1 GiB and 100 MiB free", "[memory][fit]") {
    FakeMachine four(4 * GiB);
    FitChoice c = fit_seed(four.budget());
    CHECK(c.reduced);
    CHECK(c.bytes == 256 * MiB);  // 2 GiB of buffers; 512 MiB copies would need 4 GiB
    CHECK(c.message == "this machine has 4 GiB free: copies of 256 MiB instead of 2 GiB");

    FakeMachine one(GiB);
    c = fit_seed(one.budget());
    CHECK(c.bytes == 64 * MiB);
    CHECK(c.message == "this machine has 1 GiB free: copies of 64 MiB instead of 2 GiB");

    FakeMachine tiny(100 * MiB);
    c = fit_seed(tiny.budget());
    CHECK_FALSE(c.fits);
    CHECK(c.bytes == 64 * MiB);
    CHECK(c.needed == 512 * MiB + fit_headroom(512 * MiB));
    CHECK(c.message ==
          "this machine has 100 MiB free: the plan needs 832 MiB (with headroom) even with "
          "copies of 64 MiB, the smallest --fit tries; free memory or raise the limit");
}

TEST_CASE("run --fit: ulimit -v and a cgroup memory.max bind and are named", "[memory][fit]") {
    FakeMachine m(20 * GiB);
    m.sources.address_space_limit = 2 * GiB + 256 * MiB;  // leaves 2 GiB
    FitChoice c = fit_seed(m.budget());
    CHECK(c.bytes == 128 * MiB);  // 1 GiB + headroom; 256 MiB copies need 2 GiB + headroom
    CHECK(c.message ==
          "this machine has 2 GiB free under the address-space limit (ulimit -v, 2.25 GiB): "
          "copies of 128 MiB instead of 2 GiB");

    m.sources.address_space_limit = kNoAddressSpaceLimit;
    write(m.dir / "sys/memory.max", std::to_string(6 * GiB) + "\n");
    write(m.dir / "sys/memory.current", "0\n");
    c = fit_seed(m.budget());
    CHECK(c.bytes == 512 * MiB);
    CHECK(c.message == "this machine has 6 GiB free under the cgroup memory limit (6 GiB, " +
                           (m.dir / "sys/memory.max").string() +
                           "): copies of 512 MiB instead of 2 GiB");
}

TEST_CASE("run --fit: a size that is no power of two halves from the power below it",
          "[memory][fit]") {
    FakeMachine m(GiB);
    const FitChoice c = fit_copy_size({3 * GiB, kFitFloorBytes, seed_need}, m.budget());
    CHECK(c.bytes == 64 * MiB);
    CHECK(contains(c.message, "instead of 3 GiB"));
}

TEST_CASE("the real machine: MemAvailable is read and at most MemTotal", "[memory][limits]") {
    const MemoryBudget b = read_memory_budget();
    CHECK(b.limits.front().left > 0);
    CHECK(b.limits.front().left <= b.total());
}

TEST_CASE("the preflight names the binding limit, per worker process under ulimit -v",
          "[memory][limits]") {
    FakeMachine m(20 * GiB);
    m.sources.address_space_limit = 2 * GiB + 256 * MiB;  // leaves 2 GiB (VmSize 256 MiB)
    const MemoryBudget b = m.budget();
    // 4 worker processes of 1 GiB each: every process fits its own address space.
    PlanMemory processes;
    add_run_need(processes, {4 * GiB, 0}, 4);
    CHECK(memory_problem(processes, b).empty());
    // The same 4 GiB as threads of this process do not.
    PlanMemory threads;
    add_run_need(threads, {4 * GiB, 0}, 1);
    CHECK(memory_problem(threads, b) ==
          "the largest run needs 4 GiB of host memory but the address-space limit (ulimit -v) "
          "of 2.25 GiB leaves 2 GiB; lower transfer.bytes or threads.count");
    // Worker processes of 3 GiB each: the limit binds each of them, and the message says so.
    PlanMemory big;
    add_run_need(big, {12 * GiB, 0}, 4);
    CHECK(memory_problem(big, b) ==
          "the largest run needs 3 GiB of host memory per worker process but the address-space "
          "limit (ulimit -v) of 2.25 GiB leaves 2 GiB; lower transfer.bytes or threads.count");
    // More than the machine has at all.
    PlanMemory huge;
    add_run_need(huge, {30 * GiB, 0}, 1);
    CHECK(contains(memory_problem(huge, b), "more than this machine has (24 GiB in all)"));
}
