#pragma once
// A record, a ThreadInfo and a run with every field set to a value that would not survive a
// careless conversion, for the results tests (JSON in test_results_serialize, SQLite in
// test_results_record_store).
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "results/run_result.hpp"

namespace xfer::testing {

inline Record full_record() {
    Record r;
    r.run = 3;
    r.worker = 7;
    r.repetition = -1;
    r.warmup = true;
    r.device = 2;
    r.bytes = (uint64_t(1) << 40) + 12345;  // above 2^32 and 2^53 bits of a double's mantissa
    r.host_start_ns = std::numeric_limits<int64_t>::max() - 1000;
    r.host_end_ns = std::numeric_limits<int64_t>::max() - 1;
    r.device_start_ns = 1'700'000'000'123'456'789;
    r.device_end_ns = 1'700'000'000'223'456'789;
    r.device_timing = DeviceTiming::cupti;
    r.correlation = 4'000'000'001u;
    r.context = 5;
    r.stream = 13;
    r.tid = 123456;
    r.cpu = 15;
    r.pid = 98765;
    r.between_ns = 5'123;
    return r;
}

inline ThreadInfo full_thread_info() {
    ThreadInfo t;
    t.launcher = "python";
    t.worker = 1;
    t.pid = 42;
    t.tid = 43;
    t.name = "xfer-1";
    t.hostname = "node07";
    t.stack_size = 8 << 20;
    t.guard_size = 4096;
    t.blocked_signals = {2, 15};
    t.cpus = {0, 2, 4};
    t.policy = "batch";
    t.priority = 0;
    t.nice = 5;
    t.numa_node = 1;
    t.python_thread = true;
    t.gil_held = false;
    return t;
}

inline RunResult full_run() {
    RunResult r;
    r.position.index = 1;
    r.position.label = "python gil=release, \"quoted\"";
    r.position.sweep_point = {{"threads.count", "2"}, {"transfer.host_memory", "pinned"}};
    r.position.scaling_key = "python gil=release";
    r.position.trial = 3;  // not the default 1
    r.position.slot = 4;   // nor the index
    r.position.base_label = "python gil=release";
    r.settings.launcher = "python";
    r.backend_used = "cuda";
    r.settings.threads.count = 2;
    r.settings.threads.stack_size = 1 << 20;  // not the defaults
    r.settings.transfer.bytes = uint64_t(7) << 30;
    r.settings.transfer.host_memory = HostMemory{HostMemoryKind::numa, 1};
    r.settings.transfer.verify = false;
    // A payload's w.timed() block: its label, device copies and the payload's own check.
    Record timed = full_record();
    timed.repetition = 0;  // the worker's next copy: no two records share worker and repetition
    timed.source = 2;
    timed.device_calls = 3;
    timed.gil_held_calls = 1;
    timed.failed = true;
    // Its gap taken apart ([threads] gap_stages, gap_counters): stamps past 2^53, some counters.
    timed.gap.attached_ns = timed.host_start_ns - 300;
    timed.gap.python_ns = timed.host_start_ns - 200;
    timed.gap.entry_ns = timed.host_start_ns - 100;
    timed.gap.counters[size_t(ThreadCounter::on_cpu_ns)] = 4'000'000'000u;
    timed.gap.counters[size_t(ThreadCounter::involuntary_switches)] = 0;
    timed.gap.counters[size_t(ThreadCounter::dtlb_misses)] = 17;
    // A watched program's copy (xferlab watch): its kinds and where its host pages were.
    Record watched = full_record();
    watched.repetition = 1;  // the worker's copy after the timed block's
    watched.copy_kind = 2;   // DtoH
    watched.src_kind = 3;   // device
    watched.dst_kind = 2;   // pinned
    watched.host_node = 1;
    r.records = {full_record(), Record{}, timed, watched};
    r.copy_sources = {"torch copy_", "cupy.ndarray.set \"x\""};
    DeviceCopy c;
    c.correlation = timed.correlation;
    c.worker = timed.worker;
    c.repetition = timed.repetition;
    c.start_ns = 1'700'000'000'123'456'789;
    c.end_ns = 1'700'000'000'133'456'789;
    c.bytes = 1 << 20;
    c.device = 2;
    c.stream = 7;
    c.kind = "HtoD";
    c.src = "pageable";
    c.dst = "device";
    r.device_copies = {c, c};
    r.payload_verified = {{7, "cupy.array_equal on the device"}};
    r.threads_info = {full_thread_info(), ThreadInfo{}};
    r.status = RunStatus::failed;
    r.errors = {"verification failed: worker 1 repetition 0 offset 4096", "second"};
    r.notes = {"backend auto fell back to host"};
    r.start_ns = 100;
    r.end_ns = 200;
    r.host_activity = HostActivity{"copies", 2'500'000'000, 16, 3.25, 2.125, 1.125, 0.0625};
    return r;
}

}  // namespace xfer::testing
