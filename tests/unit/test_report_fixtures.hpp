#pragma once
// Synthetic results for the report tests: records placed by hand, so every statistic has a
// hand-computed expected value.
#include <cstdint>
#include <string>
#include <vector>

#include "report/analysis/finding.hpp"
#include "results/run_result.hpp"

namespace xfer::testing {

constexpr int64_t kS = 1'000'000'000;  // ns per second
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kUs = 1'000;
constexpr uint64_t kGB = 1'000'000'000;

inline Record record(int run, int worker, int rep, int64_t start, int64_t end, uint64_t bytes,
                     bool warmup = false) {
    Record r;
    r.run = run;
    r.worker = worker;
    r.repetition = rep;
    r.warmup = warmup;
    r.bytes = bytes;
    r.host_start_ns = start;
    r.host_end_ns = end;
    r.tid = 1000 + worker;
    r.pid = 77;
    r.cpu = worker;
    return r;
}

inline RunResult run(int index, const std::string& launcher, int threads,
                     const std::string& scaling_key = "") {
    RunResult r;
    r.position.index = index;
    r.position.label = launcher + " threads.count=" + std::to_string(threads);
    r.settings.launcher = launcher;
    r.backend_used = "host";
    r.settings.threads.count = threads;
    r.settings.transfer.bytes = kGB;
    r.settings.transfer.direction = Direction::h2d;
    r.settings.transfer.host_memory = HostMemory{HostMemoryKind::pageable, -1};
    r.position.scaling_key = scaling_key;
    return r;
}

// Worker `w` copies back to back from `t0`, one copy per duration (ns), kGB bytes each.
inline void back_to_back(RunResult& r, int w, int64_t t0, const std::vector<int64_t>& durations) {
    int64_t t = t0;
    for (size_t i = 0; i < durations.size(); ++i) {
        r.records.push_back(record(r.position.index, w, int(i), t, t + durations[i], kGB));
        t += durations[i];
    }
}

// Whether any of `lines` contains `part`.
inline bool says(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
    return false;
}

// Whether any finding's sentence contains `part`.
inline bool says(const std::vector<Finding>& findings, const std::string& part) {
    return says(texts(findings), part);
}

}  // namespace xfer::testing
