#include "watch/watched_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <string.h>

#include <algorithm>
#include <map>
#include <set>

#include "results/copy_kinds.hpp"
#include "system/hostname.hpp"
#include "util/format.hpp"
#include "util/terminal_text.hpp"
#include "watch/watch_join.hpp"

namespace xfer::watch {
namespace {

const char* policy_name(int policy) {
    switch (policy) {
        case SCHED_OTHER:
            return "other";
        case SCHED_FIFO:
            return "fifo";
        case SCHED_RR:
            return "rr";
        case SCHED_BATCH:
            return "batch";
        case SCHED_IDLE:
            return "idle";
        default:
            return "?";
    }
}

// The run's direction for a copy kind (the kinds of arrays count as their memory's side).
Direction direction_of(uint8_t kind) {
    switch (kind) {
        case copy_kind::dtoh:
        case 4:
            return Direction::d2h;  // AtoH
        case copy_kind::dtod:
        case 5:
        case 6:
        case 7:
            return Direction::d2d;
        case copy_kind::htoh:
            return Direction::h2h;
        case copy_kind::ptop:
            return Direction::p2p;
        default:
            return Direction::h2d;  // HtoD, HtoA
    }
}

// The memory kind of a copy's host side (0: no host side).
uint8_t host_side(const Record& r) {
    const Direction d = direction_of(r.copy_kind);
    if (d == Direction::h2d || d == Direction::h2h) return r.src_kind;
    if (d == Direction::d2h) return r.dst_kind;
    return 0;
}

std::string program_text(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
    return terminal_safe(out);
}

ThreadInfo thread_info(const ProcessTrace& t, int tid, int worker) {
    ThreadInfo info;
    info.launcher = kWatchedLauncher;
    info.worker = worker;
    info.pid = t.pid;
    info.tid = tid;
    info.hostname = this_hostname();
    if (auto it = t.threads.find(tid); it != t.threads.end()) {
        const xw_thread& x = it->second.info;
        info.name = std::string(x.name, strnlen(x.name, sizeof x.name));
        info.cpus = it->second.cpus;
        info.policy = policy_name(x.policy);
        info.priority = x.priority;
        info.nice = x.nice;
    }
    return info;
}

// What the join of one process could not place, as the run's notes say it.
void join_notes(const ProcessTrace& t, const JoinedProcess& j, bool several,
                std::vector<std::string>& notes) {
    const std::string who = several ? fmt::format("process {}: ", t.pid) : "";
    if (j.failed_calls)
        notes.push_back(
            fmt::format("{}{} copy call(s) failed (an error code): left out", who, j.failed_calls));
    if (j.calls_without_activity)
        notes.push_back(fmt::format(
            "{}{} copy call(s) have no device copy: CUPTI had not delivered it when the process "
            "ended, or dropped it; left out",
            who, j.calls_without_activity));
    if (j.activity_without_call)
        notes.push_back(fmt::format(
            "{}{} device copies or memsets have no call in the record file (issued before the "
            "library was loaded, or the call's record lost with the process): left out",
            who, j.activity_without_call));
    if (!t.end)
        notes.push_back(fmt::format(
            "{}process {} ended without the library's exit handler (a crash, a kill or "
            "os._exit): what it recorded up to then is here, device copies CUPTI had not yet "
            "delivered are not",
            who, t.pid));
    else {
        if (t.end->dropped)
            notes.push_back(
                fmt::format("{}CUPTI dropped {} activity record(s)", who, t.end->dropped));
        if (t.end->extra_buffers)
            notes.push_back(fmt::format(
                "{}{} CUPTI buffer request(s) refused at the library's cap (its memory is "
                "bounded): their records were dropped",
                who, t.end->extra_buffers));
        if (t.end->incomplete)
            notes.push_back(fmt::format("{}{} activity record(s) came without timestamps", who,
                                        t.end->incomplete));
        if (t.end->not_written)
            notes.push_back(
                fmt::format("{}{} record(s) could not be written (a full disk?): they are missing",
                            who, t.end->not_written));
    }
    if (t.torn)
        notes.push_back(
            fmt::format("{}{} record(s) were cut short by the process's end", who, t.torn));
    if (t.unknown_types)
        notes.push_back(fmt::format("{}{} record(s) of a kind this xferlab does not read", who,
                                    t.unknown_types));
    for (const auto& n : t.notes)
        notes.push_back(fmt::format("process {}: the library said: {}", t.pid, terminal_safe(n)));
}

struct Counts {
    uint64_t n = 0, bytes = 0;
};

void settings_of(RunResult& run, int workers) {
    RunSettings& s = run.settings;
    s.launcher = kWatchedLauncher;
    s.backend = "cuda";
    run.backend_used = "cuda";
    s.threads.count = std::max(workers, 1);
    TransferSpec& t = s.transfer;
    t.repetitions = 0;
    t.warmup = 0;
    t.verify = false;
    // The direction and host memory that moved the most bytes, and the median copy's size:
    // what the run's one-line summaries name; the watched section lists every kind.
    std::map<Direction, uint64_t> by_direction;
    std::map<uint8_t, uint64_t> by_host_kind;
    std::vector<uint64_t> sizes;
    std::map<int, int> per_worker;
    for (const Record& r : run.records) {
        by_direction[direction_of(r.copy_kind)] += r.bytes;
        if (uint8_t k = host_side(r)) by_host_kind[k] += r.bytes;
        sizes.push_back(r.bytes);
        t.repetitions = std::max(t.repetitions, ++per_worker[r.worker]);
    }
    const auto most = [](const auto& m) {
        return std::max_element(m.begin(), m.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    };
    if (!by_direction.empty()) t.direction = most(by_direction)->first;
    t.host_memory.kind = !by_host_kind.empty() && most(by_host_kind)->first == memory_kind::pinned
                             ? HostMemoryKind::pinned
                             : HostMemoryKind::pageable;
    if (!sizes.empty()) {
        std::nth_element(sizes.begin(), sizes.begin() + long(sizes.size() / 2), sizes.end());
        t.bytes = sizes[sizes.size() / 2];
    }
}

std::vector<DeviceUse> device_uses(const RunResult& run) {
    std::map<std::pair<int, std::string>, std::pair<std::vector<uint64_t>, std::set<int>>> by;
    for (const Record& r : run.records) {
        const Direction d = direction_of(r.copy_kind);
        if (d != Direction::h2d && d != Direction::d2h) continue;
        auto& [sizes, workers] = by[{r.device, to_string(d)}];
        sizes.push_back(r.bytes);
        workers.insert(r.worker);
    }
    std::vector<DeviceUse> out;
    for (auto& [key, v] : by) {
        auto& sizes = v.first;
        std::nth_element(sizes.begin(), sizes.begin() + long(sizes.size() / 2), sizes.end());
        out.push_back({.device = key.first,
                       .direction = key.second,
                       .median_bytes = sizes[sizes.size() / 2],
                       .workers = int(v.second.size()),
                       .copies = sizes.size()});
    }
    return out;
}

}  // namespace

WatchedRun watched_run(const std::vector<ProcessTrace>& traces, const WatchedProgram& program) {
    WatchedRun out;
    RunResult& run = out.run;
    run.position.index = 0;
    run.position.label = kWatchedLabel;
    run.position.base_label = kWatchedLabel;
    run.start_ns = program.start_ns;
    run.end_ns = program.end_ns;
    run.status = program.interrupted ? RunStatus::interrupted : RunStatus::ok;
    std::vector<std::string>& notes = run.notes;
    notes.push_back(fmt::format("the program ({}) {}", program_text(program.argv), program.ended));

    std::map<std::pair<int, int>, int> worker_of;  // (pid, tid) -> worker
    std::vector<Record> records;
    std::map<std::string, uint64_t> functions;
    std::map<int, Counts> memsets, small;  // by device
    nlohmann::json devices = nlohmann::json::array();
    std::set<int> clocks_noted;
    const bool several = traces.size() > 1;
    std::vector<int> processes;
    for (const ProcessTrace& t : traces) {
        const JoinedProcess j = join_process(t);
        join_notes(t, j, several, notes);
        for (const auto& [id, d] : t.devices)
            devices.push_back(
                {{"pid", t.pid},
                 {"index", d.device},
                 {"name", std::string(d.name, strnlen(d.name, sizeof d.name))},
                 {"pci_bus_id",
                  std::string(d.pci_bus_id, strnlen(d.pci_bus_id, sizeof d.pci_bus_id))},
                 {"numa_node", d.numa_node}});
        if (!j.calls.empty()) processes.push_back(t.pid);
        if (!j.calls.empty() && t.clock && !t.clock->timestamp_callback)
            notes.push_back(fmt::format("process {}: device timestamps on {}", t.pid, j.clock));
        for (const JoinedCall& c : j.calls) {
            if (c.memset) {
                memsets[c.device].n++;
                memsets[c.device].bytes += c.bytes;
                continue;
            }
            if (c.bytes < program.min_bytes) {
                small[c.device].n++;
                small[c.device].bytes += c.bytes;
                continue;
            }
            ++functions[c.function];
            Record r;
            r.pid = c.pid;
            r.tid = c.tid;
            r.cpu = c.cpu;
            r.device = c.device;
            r.bytes = c.bytes;
            r.host_start_ns = c.host_start_ns;
            r.host_end_ns = c.host_end_ns;
            r.device_start_ns = c.device_start_ns;
            r.device_end_ns = c.device_end_ns;
            r.device_timing = DeviceTiming::cupti;
            r.correlation = c.correlation;
            r.context = c.context;
            r.stream = c.stream;
            r.copy_kind = c.copy_kind ? c.copy_kind : copy_kind::htod;
            r.src_kind = c.src_kind;
            r.dst_kind = c.dst_kind;
            r.host_node = int16_t(c.host_node);
            records.push_back(r);
        }
    }
    // Workers in the order of their first copies; each worker's copies numbered in order.
    std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
        return a.host_start_ns < b.host_start_ns;
    });
    std::map<int, int> next_repetition;
    for (Record& r : records) {
        auto [it, added] = worker_of.emplace(std::pair{r.pid, r.tid}, int(worker_of.size()));
        r.worker = it->second;
        r.repetition = next_repetition[r.worker]++;
        if (added) {
            for (const ProcessTrace& t : traces)
                if (t.pid == r.pid) run.threads_info.push_back(thread_info(t, r.tid, r.worker));
        }
    }
    run.records = std::move(records);
    settings_of(run, int(worker_of.size()));
    out.uses = device_uses(run);

    if (several)
        notes.push_back(
            fmt::format("{} processes recorded copies ({}): each OS thread that "
                        "copied is a worker",
                        processes.size(), fmt::join(processes, ", ")));
    if (!functions.empty()) {
        std::vector<std::string> parts;
        for (const auto& [name, n] : functions) parts.push_back(fmt::format("{} {}", name, n));
        notes.push_back("copy calls by function: " + fmt::format("{}", fmt::join(parts, ", ")));
    }
    for (const auto& [device, c] : memsets)
        notes.push_back(
            fmt::format("device {}: the program also set memory {} time(s) ({} in "
                        "all): memsets are not copies and are left out",
                        device, c.n, fmtx::size(c.bytes)));
    for (const auto& [device, c] : small)
        notes.push_back(
            fmt::format("device {}: {} copies below --min-bytes {} ({} in all) are "
                        "left out",
                        device, c.n, fmtx::size(program.min_bytes), fmtx::size(c.bytes)));
    if (run.records.empty())
        notes.push_back(traces.empty()
                            ? "no process of the program recorded anything: it made no CUDA "
                              "call, or the driver did not load the library"
                            : "the program made no copy that could be recorded");
    out.devices = {{"summary",
                    "the CUDA devices the watched program's processes used, as they "
                    "numbered them"},
                   {"devices", devices}};
    return out;
}

}  // namespace xfer::watch
