// watch/record_writer, capture, record_reader: what the injected library writes is read back
// exactly, in bounded memory, and what a dying process leaves is told apart from what it wrote.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "support/catch.hpp"
#include "watch/capture.hpp"
#include "watch/record_reader.hpp"
#include "watch/record_writer.hpp"

using namespace xfer::watch;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("xfer-watch-" + std::to_string(getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

xw_record api_record(uint32_t correlation, int64_t start) {
    xw_record r{};
    r.tid = 77;
    r.u.api.correlation = correlation;
    r.u.api.domain = XW_RUNTIME;
    r.u.api.cbid = 31;
    r.u.api.start_ns = start;
    r.u.api.end_ns = start + 10;
    r.u.api.bytes = 4096;
    return r;
}

}  // namespace

TEST_CASE("records written are read back field by field, each kind where it belongs",
          "[watch][records]") {
    const fs::path dir = fresh_dir("roundtrip");
    RecordWriter w;
    REQUIRE(w.open(dir.string()).empty());
    xw_record api = api_record(5, 1000);
    api.u.api.outer = 4;
    api.u.api.host_ptr = 0xabcdef;
    REQUIRE(w.write(XW_API, api));
    xw_record copy{};
    copy.u.memcpy.correlation = 6;
    copy.u.memcpy.runtime_correlation = 5;
    copy.u.memcpy.bytes = uint64_t(1) << 40;
    copy.u.memcpy.start = 2000;
    copy.u.memcpy.end = 3000;
    copy.u.memcpy.src_kind = 1;
    REQUIRE(w.write(XW_MEMCPY, copy));
    xw_record name{};
    name.u.name.domain = XW_DRIVER;
    name.u.name.cbid = 276;
    std::strcpy(name.u.name.name, "cuMemcpyHtoD_v2");
    REQUIRE(w.write(XW_NAME, name));
    xw_record thread{};
    thread.tid = 77;
    std::strcpy(thread.u.thread.name, "copier-1");
    REQUIRE(w.write(XW_THREAD, thread));
    xw_record affinity{};
    affinity.tid = 77;
    affinity.u.affinity.first_cpu = 384;
    affinity.u.affinity.bits[0] = 0x5;  // CPUs 384 and 386
    REQUIRE(w.write(XW_AFFINITY, affinity));
    w.close();

    const ProcessTrace t = read_process_trace(w.path());
    CHECK(t.pid == getpid());
    CHECK(t.records == 5);
    REQUIRE(t.calls.size() == 1);
    CHECK(t.calls[0].tid == 77);
    CHECK(t.calls[0].api.correlation == 5);
    CHECK(t.calls[0].api.outer == 4);
    CHECK(t.calls[0].api.host_ptr == 0xabcdef);
    REQUIRE(t.copies.size() == 1);
    CHECK(t.copies[0].bytes == (uint64_t(1) << 40));
    CHECK(t.copies[0].runtime_correlation == 5);
    CHECK(function_name(t, XW_DRIVER, 276) == "cuMemcpyHtoD_v2");
    CHECK(function_name(t, XW_RUNTIME, 31) == "runtime callback 31");
    REQUIRE(t.threads.count(77));
    CHECK(std::string(t.threads.at(77).info.name) == "copier-1");
    CHECK(t.threads.at(77).cpus == std::vector<int>{384, 386});
    CHECK(!t.end);
    CHECK(t.torn == 0);
}

TEST_CASE("a slot written without its commit word is counted as cut short, not read",
          "[watch][records]") {
    const fs::path dir = fresh_dir("torn");
    RecordWriter w;
    REQUIRE(w.open(dir.string()).empty());
    xw_record a = api_record(1, 100);
    REQUIRE(w.write(XW_API, a));
    w.close();
    // What a process killed inside write() leaves: the body of the next slot, no commit word.
    {
        std::fstream f(w.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(64 + 64 + 8);
        const char body[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        f.write(body, sizeof body);
    }
    const ProcessTrace t = read_process_trace(w.path());
    CHECK(t.calls.size() == 1);
    CHECK(t.torn == 1);
}

TEST_CASE("the writer maps one segment at a time and its records outlast the mapping",
          "[watch][records]") {
    const fs::path dir = fresh_dir("segments");
    RecordWriter w;
    REQUIRE(w.open(dir.string()).empty());
    // Three segments' worth (16384 slots each, the header in the first).
    const uint32_t n = 3 * 16384;
    for (uint32_t i = 1; i <= n; ++i) {
        xw_record r = api_record(i, int64_t(i));
        REQUIRE(w.write(XW_API, r));
    }
    const std::string path = w.path();
    w.close();
    CHECK(fs::file_size(path) == 4 * RecordWriter::kSegmentBytes);
    const ProcessTrace t = read_process_trace(path);
    REQUIRE(t.calls.size() == n);
    CHECK(t.calls.front().api.correlation == 1);
    CHECK(t.calls.back().api.correlation == n);
    CHECK(w.not_written() == 0);
}

TEST_CASE("records a process wrote survive its SIGKILL", "[watch][records]") {
    const fs::path dir = fresh_dir("killed");
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        RecordWriter w;
        if (!w.open(dir.string()).empty()) _exit(1);
        for (uint32_t i = 1; i <= 1000; ++i) {
            xw_record r = api_record(i, i);
            w.write(XW_API, r);
        }
        kill(getpid(), SIGKILL);  // nothing unmapped, closed or flushed
        _exit(2);
    }
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    const auto traces = read_watch_folder(dir);
    REQUIRE(traces.size() == 1);
    CHECK(traces[0].pid == child);
    CHECK(traces[0].calls.size() == 1000);
    CHECK(!traces[0].end);
}

TEST_CASE("a forked child writes its own file, never into its parent's", "[watch][records]") {
    const fs::path dir = fresh_dir("fork");
    RecordWriter& w = process_writer();
    REQUIRE(w.open(dir.string()).empty());
    xw_record parent = api_record(1, 1);
    REQUIRE(w.write(XW_API, parent));
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        xw_record r = api_record(2, 2);
        _exit(process_writer().write(XW_API, r) ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WEXITSTATUS(status) == 0);
    xw_record after = api_record(3, 3);
    REQUIRE(w.write(XW_API, after));
    w.close();
    const auto traces = read_watch_folder(dir);
    REQUIRE(traces.size() == 2);
    for (const auto& t : traces) {
        INFO(t.file);
        if (t.pid == getpid()) {
            REQUIRE(t.calls.size() == 2);
            CHECK(t.calls[0].api.correlation == 1);
            CHECK(t.calls[1].api.correlation == 3);
        } else {
            CHECK(t.pid == child);
            CHECK(t.ppid == getpid());
            REQUIRE(t.calls.size() == 1);
            CHECK(t.calls[0].api.correlation == 2);
        }
    }
}

TEST_CASE("a file that is not a record file is refused by name", "[watch][records]") {
    const fs::path dir = fresh_dir("foreign");
    const fs::path f = dir / "1.xwatch";
    std::ofstream(f) << "{\"runs\": []}";
    CHECK_THROWS_WITH(read_process_trace(f),
                      f.string() + ": not a record file of xferlab watch (no XFWATCH header)");
    xw_header h{};
    std::memcpy(h.magic, XW_MAGIC, 8);
    h.version = 2;
    h.record_bytes = 64;
    std::ofstream(f, std::ios::binary).write(reinterpret_cast<const char*>(&h), sizeof h);
    CHECK_THROWS_WITH(read_process_trace(f),
                      f.string() +
                          ": record file version 2 with 64-byte records; this xferlab "
                          "reads version 1 (64 bytes)");
}

TEST_CASE("a folder that cannot be written counts every record as not written",
          "[watch][records]") {
    RecordWriter w;
    CHECK(w.open("/proc/no-such-folder") == "cannot create a record file in /proc/no-such-folder");
    xw_record r = api_record(1, 1);
    CHECK(!w.write(XW_API, r));
    CHECK(w.not_written() == 1);
}

TEST_CASE(
    "a call nested in another names its outermost call, and a thread and a function are "
    "announced once",
    "[watch][capture]") {
    const fs::path dir = fresh_dir("capture");
    Capture& c = Capture::instance();
    REQUIRE(c.start(dir.string(), 1 << 20).empty());
    std::thread([&] {
        pthread_setname_np(pthread_self(), "copier-9");
        for (uint32_t k = 0; k < 2; ++k) {
            ApiCall runtime{
                .domain = XW_RUNTIME, .cbid = 31, .name = "cudaMemcpy", .correlation = 10 + 2 * k};
            ApiCall driver{.domain = XW_DRIVER,
                           .cbid = 276,
                           .name = "cuMemcpyHtoD_v2",
                           .correlation = 11 + 2 * k};
            c.api_enter(runtime);
            c.api_enter(driver);
            c.api_exit(driver, 0);
            c.api_exit(runtime, k == 1 ? 700 : 0);
        }
    }).join();
    c.end(xw_end{});
    process_writer().close();
    const auto traces = read_watch_folder(dir);
    REQUIRE(traces.size() == 1);
    const ProcessTrace& t = traces[0];
    REQUIRE(t.calls.size() == 4);
    // Written at their returns: the driver call first, naming the runtime call around it.
    CHECK(t.calls[0].api.correlation == 11);
    CHECK(t.calls[0].api.outer == 10);
    CHECK(t.calls[1].api.correlation == 10);
    CHECK(t.calls[1].api.outer == 0);
    CHECK(t.calls[1].api.start_ns <= t.calls[0].api.start_ns);
    CHECK(t.calls[1].api.end_ns >= t.calls[0].api.end_ns);
    CHECK(t.calls[3].api.result == 700);
    CHECK(t.names.size() == 2);
    REQUIRE(t.threads.size() == 1);
    CHECK(std::string(t.threads.begin()->second.info.name) == "copier-9");
    CHECK(t.end);
}

TEST_CASE("host pages are sampled where they are: present on a node, or not present yet",
          "[watch][numa]") {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t bytes = 64 * page;
    char* p = static_cast<char*>(
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(p != MAP_FAILED);
    int8_t nodes[XW_NUMA_PAGES];
    // Untouched: no page is present.
    REQUIRE(sample_host_nodes(p, bytes, nodes, XW_NUMA_PAGES) == XW_NUMA_PAGES);
    for (int i = 0; i < XW_NUMA_PAGES; ++i) CHECK(nodes[i] == -ENOENT);
    // Touched: every sampled page on a node (this machine's node 0 on a one-node host).
    std::memset(p, 1, bytes);
    REQUIRE(sample_host_nodes(p, bytes, nodes, XW_NUMA_PAGES) == XW_NUMA_PAGES);
    for (int i = 0; i < XW_NUMA_PAGES; ++i) CHECK(nodes[i] >= 0);
    // Fewer pages than samples: each page once.
    CHECK(sample_host_nodes(p, 3 * page, nodes, XW_NUMA_PAGES) == 3);
    CHECK(sample_host_nodes(nullptr, bytes, nodes, XW_NUMA_PAGES) == 0);
    munmap(p, bytes);
}
