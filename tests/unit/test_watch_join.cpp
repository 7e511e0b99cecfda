// watch/watch_join and watched_run: activity records in the shape CUPTI delivers them land on
// the call the program made, whatever id they carry, and a watched program becomes one run
// whose workers are its copying threads.
#include <algorithm>
#include <cstring>

#include "results/copy_kinds.hpp"
#include "support/catch.hpp"
#include "watch/watch_join.hpp"
#include "watch/watched_run.hpp"

using namespace xfer;
using namespace xfer::watch;

namespace {

TraceCall call(int tid, uint32_t id, uint32_t outer, uint8_t domain, int64_t start, int64_t end,
               int result = 0) {
    TraceCall c;
    c.tid = tid;
    c.api.correlation = id;
    c.api.outer = outer;
    c.api.domain = domain;
    c.api.cbid = domain == XW_RUNTIME ? 31 : 276;
    c.api.start_ns = start;
    c.api.end_ns = end;
    c.api.result = result;
    return c;
}

xw_memcpy copy(uint32_t driver_id, uint32_t runtime_id, uint64_t start, uint64_t end,
               uint64_t bytes, uint8_t src_kind = 1) {
    xw_memcpy a{};
    a.correlation = driver_id;
    a.runtime_correlation = runtime_id;
    a.start = start;
    a.end = end;
    a.bytes = bytes;
    a.device = 0;
    a.context = 1;
    a.stream = 7;
    a.copy_kind = 1;
    a.src_kind = src_kind;
    a.dst_kind = 3;
    return a;
}

// One cudaMemcpy (runtime id r) with its cuMemcpyHtoD_v2 (driver id r + 1) on thread `tid`.
void add_copy_call(ProcessTrace& t, int tid, uint32_t r, int64_t start, int64_t end) {
    t.calls.push_back(call(tid, r + 1, r, XW_DRIVER, start + 1, end - 1));
    t.calls.push_back(call(tid, r, 0, XW_RUNTIME, start, end));
}

ProcessTrace process(int pid) {
    ProcessTrace t;
    t.pid = pid;
    t.names[{XW_RUNTIME, 31}] = "cudaMemcpy";
    t.names[{XW_DRIVER, 276}] = "cuMemcpyHtoD_v2";
    xw_clock clock{};
    clock.timestamp_callback = 1;
    t.clock = clock;
    t.end = xw_end{};
    return t;
}

}  // namespace

TEST_CASE("a device copy joins the call the program made, by the driver or the runtime id",
          "[watch][join]") {
    ProcessTrace t = process(100);
    add_copy_call(t, 7, 10, 1000, 2000);
    add_copy_call(t, 7, 20, 3000, 4000);
    add_copy_call(t, 8, 30, 5000, 6000);
    t.copies.push_back(copy(11, 10, 1100, 1900, 4096));  // both ids
    t.copies.push_back(copy(21, 0, 3100, 3900, 4096));   // the driver id alone
    t.copies.push_back(copy(0, 30, 5100, 5900, 4096));   // the runtime id alone
    const JoinedProcess j = join_process(t);
    REQUIRE(j.calls.size() == 3);
    for (const JoinedCall& c : j.calls) {
        INFO(c.correlation);
        CHECK(c.function == "cudaMemcpy");
        CHECK(c.parts == 1);
        CHECK(c.bytes == 4096);
        CHECK(c.device_start_ns == c.host_start_ns + 100);
        CHECK(c.device_end_ns == c.host_end_ns - 100);
    }
    CHECK(j.calls[0].correlation == 10);
    CHECK(j.calls[1].correlation == 20);
    CHECK(j.calls[2].correlation == 30);
    CHECK(j.calls[2].tid == 8);
    CHECK(j.calls_without_activity == 0);
    CHECK(j.activity_without_call == 0);
}

TEST_CASE("a copy the driver split is one call: first start to last end, bytes summed",
          "[watch][join]") {
    ProcessTrace t = process(100);
    add_copy_call(t, 7, 10, 1000, 9000);
    t.copies.push_back(copy(11, 10, 5000, 8000, 3000));
    t.copies.push_back(copy(11, 10, 1100, 4000, 1000));  // delivered after, started before
    const JoinedProcess j = join_process(t);
    REQUIRE(j.calls.size() == 1);
    CHECK(j.calls[0].parts == 2);
    CHECK(j.calls[0].bytes == 4000);
    CHECK(j.calls[0].device_start_ns == 1100);
    CHECK(j.calls[0].device_end_ns == 8000);
}

TEST_CASE("calls without a device copy are counted apart: failed, or never delivered",
          "[watch][join]") {
    ProcessTrace t = process(100);
    add_copy_call(t, 7, 10, 1000, 2000);
    t.calls.push_back(call(7, 20, 0, XW_RUNTIME, 3000, 3100, /*result=*/1));
    add_copy_call(t, 7, 30, 5000, 6000);  // its record never arrived
    t.copies.push_back(copy(11, 10, 1100, 1900, 64));
    t.copies.push_back(copy(91, 90, 100, 200, 64));  // no call of that id in the file
    const JoinedProcess j = join_process(t);
    CHECK(j.calls.size() == 1);
    CHECK(j.failed_calls == 1);
    CHECK(j.calls_without_activity == 1);
    CHECK(j.activity_without_call == 1);
}

TEST_CASE(
    "device times are converted by the sampled offset where the timestamp callback "
    "did not take",
    "[watch][join]") {
    ProcessTrace t = process(100);
    t.clock->timestamp_callback = 0;
    t.clock->offset_ns = 500;
    add_copy_call(t, 7, 10, 1000, 2000);
    t.copies.push_back(copy(11, 10, 600, 1400, 64));
    const JoinedProcess j = join_process(t);
    REQUIRE(j.calls.size() == 1);
    CHECK(j.calls[0].device_start_ns == 1100);
    CHECK(j.calls[0].device_end_ns == 1900);
    CHECK(j.clock == "CUPTI clock + offset sampled against CLOCK_MONOTONIC");
}

TEST_CASE("a call's sampled host pages give it the node most of them were on",
          "[watch][join][numa]") {
    ProcessTrace t = process(100);
    add_copy_call(t, 7, 10, 1000, 2000);
    t.copies.push_back(copy(11, 10, 1100, 1900, 64));
    xw_numa s{};
    s.correlation = 10;
    s.pages = 5;
    const int8_t nodes[] = {1, 1, 0, -2, 1};
    std::copy(std::begin(nodes), std::end(nodes), s.node);
    t.samples[10] = s;
    const JoinedProcess j = join_process(t);
    REQUIRE(j.calls.size() == 1);
    CHECK(j.calls[0].host_node == 1);
    CHECK(j.calls[0].pages_on_node == 3);
    CHECK(j.calls[0].sampled_pages == 5);
}

TEST_CASE(
    "a watched program is one run: its copying threads are workers in the order of "
    "their first copies",
    "[watch][run]") {
    ProcessTrace a = process(100);
    add_copy_call(a, 8, 10, 2000, 3000);  // thread 8 copies second
    add_copy_call(a, 7, 20, 1000, 4000);  // thread 7 first
    add_copy_call(a, 7, 30, 5000, 6000);
    a.copies.push_back(copy(11, 10, 2100, 2900, 1 << 20));
    a.copies.push_back(copy(21, 20, 1100, 3900, 1 << 20));
    a.copies.push_back(copy(31, 30, 5100, 5900, 1 << 20, /*src_kind=*/2));
    a.threads[7].info = xw_thread{};
    std::strcpy(a.threads[7].info.name, "loader-0");
    ProcessTrace b = process(200);  // a child process, one copy
    add_copy_call(b, 200, 10, 7000, 8000);
    b.copies.push_back(copy(11, 10, 7100, 7900, 1 << 20));
    b.end.reset();  // it died before its exit handler
    WatchedProgram program{.argv = {"python3", "x.py"},
                           .start_ns = 0,
                           .end_ns = 9000,
                           .ended = "exited with status 0"};
    const WatchedRun w = watched_run({a, b}, program);
    const RunResult& r = w.run;
    CHECK(r.settings.launcher == "watched");
    CHECK(r.settings.threads.count == 3);
    CHECK(r.settings.transfer.direction == Direction::h2d);
    CHECK(r.settings.transfer.host_memory.kind == HostMemoryKind::pageable);
    CHECK(r.settings.transfer.bytes == (1u << 20));
    REQUIRE(r.records.size() == 4);
    CHECK(r.records[0].tid == 7);
    CHECK(r.records[0].worker == 0);
    CHECK(r.records[1].tid == 8);
    CHECK(r.records[1].worker == 1);
    CHECK(r.records[2].worker == 0);
    CHECK(r.records[2].repetition == 1);
    CHECK(r.records[2].src_kind == memory_kind::pinned);
    CHECK(r.records[3].pid == 200);
    CHECK(r.records[3].worker == 2);
    for (const Record& rec : r.records) {
        CHECK(rec.watched());
        CHECK(rec.device_timing == DeviceTiming::cupti);
        CHECK(!rec.warmup);
    }
    REQUIRE(r.threads_info.size() == 3);
    CHECK(r.threads_info[0].name == "loader-0");
    CHECK(r.threads_info[0].launcher == "watched");
    const auto has = [&](const std::string& text) {
        return std::find(r.notes.begin(), r.notes.end(), text) != r.notes.end();
    };
    CHECK(has("the program (python3 x.py) exited with status 0"));
    CHECK(
        has("process 200: process 200 ended without the library's exit handler (a crash, a "
            "kill or os._exit): what it recorded up to then is here, device copies CUPTI had "
            "not yet delivered are not"));
    CHECK(has("2 processes recorded copies (100, 200): each OS thread that copied is a worker"));
    CHECK(has("copy calls by function: cudaMemcpy 4"));
    REQUIRE(w.uses.size() == 1);
    CHECK(w.uses[0].direction == "h2d");
    CHECK(w.uses[0].workers == 3);
    CHECK(w.uses[0].copies == 4);
}

TEST_CASE("copies below --min-bytes and memsets are counted, not recorded", "[watch][run]") {
    ProcessTrace t = process(100);
    add_copy_call(t, 7, 10, 1000, 2000);
    add_copy_call(t, 7, 20, 3000, 4000);
    t.copies.push_back(copy(11, 10, 1100, 1900, 100));
    t.copies.push_back(copy(21, 20, 3100, 3900, 1 << 20));
    t.calls.push_back(call(7, 41, 40, XW_DRIVER, 5001, 5009));
    t.calls.push_back(call(7, 40, 0, XW_RUNTIME, 5000, 5010));
    t.calls.back().api.flags = XW_API_MEMSET;
    xw_memset m{};
    m.correlation = 41;
    m.start = 5002;
    m.end = 5008;
    m.bytes = 2048;
    t.memsets.push_back(m);
    WatchedProgram program{.argv = {"p"}, .ended = "exited with status 0", .min_bytes = 4096};
    const RunResult r = watched_run({t}, program).run;
    REQUIRE(r.records.size() == 1);
    CHECK(r.records[0].bytes == (1u << 20));
    const auto has = [&](const std::string& text) {
        return std::find(r.notes.begin(), r.notes.end(), text) != r.notes.end();
    };
    CHECK(
        has("device 0: the program also set memory 1 time(s) (2 KiB in all): memsets are not "
            "copies and are left out"));
    CHECK(has("device 0: 1 copies below --min-bytes 4 KiB (100 B in all) are left out"));
}
