#include "backend/cuda/cupti_join.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <unordered_map>

namespace xfer::cuda {
namespace {

struct Interval {
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t bytes = 0;
    uint32_t context = 0;
    uint32_t stream = 0;
    int parts = 0;
};

using ById = std::unordered_map<uint32_t, Interval>;

void add(ById& map, uint32_t id, const MemcpyActivity& a) {
    Interval& iv = map[id];
    if (iv.parts == 0) {
        iv.start = a.start;
        iv.end = a.end;
        iv.context = a.context;
        iv.stream = a.stream;
    } else {
        iv.start = std::min(iv.start, a.start);
        iv.end = std::max(iv.end, a.end);
    }
    iv.bytes += a.bytes;
    ++iv.parts;
}

bool inside(const Record& r, int64_t start, int64_t end, int64_t tol) {
    return start >= r.host_start_ns - tol && end <= r.host_end_ns + tol && end >= start;
}

}  // namespace

JoinReport join_device_times(std::vector<Record>& records, const TraceResult& trace, int pid,
                             int64_t tolerance_ns) {
    JoinReport rep;
    // The runtime callback hands out the runtime API call's correlation id: MEMCPY records carry
    // it as runtimeCorrelationId. MEMCPY2 (peer) records have only correlationId; the second
    // map serves those, and any record where the two ids are the same number.
    ById by_runtime, by_driver;
    for (const auto& a : trace.copies) {
        if (a.runtime_correlation != 0) add(by_runtime, a.runtime_correlation, a);
        if (a.correlation != 0) add(by_driver, a.correlation, a);
    }
    struct Match {
        Record* record;
        const Interval* iv;
    };
    std::vector<Match> matches;
    for (auto& r : records) {
        if (r.pid != 0 && r.pid != pid) continue;  // another process's ids mean nothing here
        if (r.foreign()) continue;                 // join_timed_blocks
        if (r.correlation == 0) {
            ++rep.without_id;
            continue;
        }
        ++rep.eligible;
        const Interval* iv = nullptr;
        if (auto it = by_runtime.find(r.correlation); it != by_runtime.end())
            iv = &it->second;
        else if (auto jt = by_driver.find(r.correlation); jt != by_driver.end())
            iv = &jt->second;
        if (!iv) {
            ++rep.missing;
            continue;
        }
        matches.push_back({&r, iv});
    }

    // Which offset puts CUPTI's clock on ours. By CUPTI's contract cuptiGetTimestamp is on the
    // records' clock, so the sampled offset is right (about 0 when our timestamp callback is in
    // use). Should a CUPTI version apply the callback to one but not the other, most device
    // intervals would land far outside their host intervals: then try "records already on
    // CLOCK_MONOTONIC" and "records on CLOCK_REALTIME" (CUPTI's documented default) and keep
    // the one that puts the most copies inside their calls. The candidates differ by seconds
    // or decades, so the choice is never a close call.
    struct Candidate {
        int64_t offset;
        const char* clock;
    };
    std::string sampled = trace.timestamp_callback
                              ? "CLOCK_MONOTONIC (CUPTI timestamp callback)"
                              : "CUPTI clock + offset sampled against CLOCK_MONOTONIC";
    std::vector<Candidate> candidates = {
        {trace.clock_offset_ns, sampled.c_str()},
        {0, "CLOCK_MONOTONIC (records taken as already on it)"},
        {trace.realtime_offset_ns, "CLOCK_REALTIME converted to CLOCK_MONOTONIC"},
    };
    auto count_inside = [&](int64_t off) {
        int n = 0;
        for (const auto& m : matches)
            if (inside(*m.record, int64_t(m.iv->start) + off, int64_t(m.iv->end) + off,
                       tolerance_ns))
                ++n;
        return n;
    };
    size_t best = 0;
    int best_inside = count_inside(candidates[0].offset);
    if (!matches.empty() && best_inside * 2 < int(matches.size())) {
        for (size_t c = 1; c < candidates.size(); ++c) {
            int n = count_inside(candidates[c].offset);
            if (n > best_inside) {
                best = c;
                best_inside = n;
            }
        }
    }
    rep.offset_ns = candidates[best].offset;
    rep.clock = candidates[best].clock;

    for (const auto& m : matches) {
        Record& r = *m.record;
        r.device_start_ns = int64_t(m.iv->start) + rep.offset_ns;
        r.device_end_ns = int64_t(m.iv->end) + rep.offset_ns;
        r.context = m.iv->context;
        r.stream = m.iv->stream;
        r.device_timing = DeviceTiming::cupti;
        ++rep.joined;
        if (m.iv->bytes != r.bytes) ++rep.bytes_mismatch;
        if (!inside(r, r.device_start_ns, r.device_end_ns, tolerance_ns)) ++rep.outside_host;
    }
    return rep;
}

namespace {

const char* copy_kind_name(uint8_t kind) {
    switch (kind) {
        case 1:
            return "HtoD";
        case 2:
            return "DtoH";
        case 3:
            return "HtoA";
        case 4:
            return "AtoH";
        case 5:
            return "AtoA";
        case 6:
            return "AtoD";
        case 7:
            return "DtoA";
        case 8:
            return "DtoD";
        case 9:
            return "HtoH";
        case 10:
            return "PtoP";
        default:
            return "unknown";
    }
}

const char* memory_kind_name(uint8_t kind) {
    switch (kind) {
        case 1:
            return "pageable";
        case 2:
            return "pinned";
        case 3:
            return "device";
        case 4:
            return "array";
        case 5:
            return "managed";
        case 6:
            return "device_static";
        case 7:
            return "managed_static";
        default:
            return "unknown";
    }
}

}  // namespace

uint64_t apply_correlation_aliases(TraceResult& trace,
                                   const std::unordered_map<uint32_t, uint32_t>& tag_of) {
    uint64_t renamed = 0;
    for (auto& a : trace.copies) {
        auto it = tag_of.find(a.runtime_correlation);
        if (it == tag_of.end()) it = tag_of.find(a.correlation);
        if (it == tag_of.end()) continue;
        a.runtime_correlation = it->second;
        a.correlation = 0;
        ++renamed;
    }
    return renamed;
}

TimedBlockJoin join_timed_blocks(std::vector<Record>& records, const TraceResult& trace, int pid,
                                 int64_t offset_ns) {
    TimedBlockJoin out;
    std::unordered_map<uint32_t, Record*> by_tag;
    for (auto& r : records)
        if (r.foreign() && (r.pid == 0 || r.pid == pid)) {
            ++out.blocks;
            if (r.correlation != 0) by_tag[r.correlation] = &r;
        }
    for (const auto& a : trace.copies) {
        auto it = by_tag.find(a.runtime_correlation);
        if (it == by_tag.end()) it = by_tag.find(a.correlation);
        if (it == by_tag.end()) continue;
        Record& r = *it->second;
        DeviceCopy c;
        c.correlation = r.correlation;
        c.worker = r.worker;
        c.repetition = r.repetition;
        c.start_ns = int64_t(a.start) + offset_ns;
        c.end_ns = int64_t(a.end) + offset_ns;
        c.bytes = a.bytes;
        c.device = int(a.device);
        c.stream = a.stream;
        c.kind = copy_kind_name(a.copy_kind);
        c.src = memory_kind_name(a.src_kind);
        c.dst = memory_kind_name(a.dst_kind);
        // The block's device interval spans all of its copies.
        if (r.device_timing != DeviceTiming::cupti) {
            r.device_start_ns = c.start_ns;
            r.device_end_ns = c.end_ns;
            r.context = a.context;
            r.stream = a.stream;
            r.device_timing = DeviceTiming::cupti;
            ++out.blocks_joined;
        } else {
            r.device_start_ns = std::min(r.device_start_ns, c.start_ns);
            r.device_end_ns = std::max(r.device_end_ns, c.end_ns);
        }
        out.copies.push_back(std::move(c));
    }
    std::sort(out.copies.begin(), out.copies.end(), [](const DeviceCopy& a, const DeviceCopy& b) {
        return std::tie(a.worker, a.repetition, a.start_ns) <
               std::tie(b.worker, b.repetition, b.start_ns);
    });
    return out;
}

std::vector<std::string> join_notes(const JoinReport& rep, const TraceResult& trace) {
    std::vector<std::string> notes;
    // A run of timed blocks only (w.timed) has no copies of xferlab's routine to count.
    if (rep.eligible > 0 || rep.without_id > 0)
        notes.push_back("CUPTI: " + std::to_string(rep.joined) + " of " +
                        std::to_string(rep.eligible) + " copies joined to memcpy records by " +
                        "correlation id; device timestamps on " + rep.clock);
    if (rep.missing > 0)
        notes.push_back("CUPTI: " + std::to_string(rep.missing) +
                        " copies have no memcpy record (dropped, or a copy the driver did not "
                        "report): they keep host times only");
    if (rep.without_id > 0)
        notes.push_back("CUPTI: " + std::to_string(rep.without_id) +
                        " copies carry no correlation id (issued while tracing was off?)");
    if (trace.dropped > 0)
        notes.push_back("CUPTI dropped " + std::to_string(trace.dropped) +
                        " activity records (no buffer space)");
    if (trace.incomplete > 0)
        notes.push_back("CUPTI delivered " + std::to_string(trace.incomplete) +
                        " memcpy records without timestamps");
    if (trace.extra_buffers > 0)
        notes.push_back("CUPTI needed " + std::to_string(trace.extra_buffers) +
                        " activity buffers beyond the preallocated pool (allocated during the "
                        "run)");
    if (rep.bytes_mismatch > 0)
        notes.push_back("CUPTI: " + std::to_string(rep.bytes_mismatch) +
                        " joined records report a byte count different from the copy's");
    if (rep.outside_host > 0)
        notes.push_back("CUPTI: " + std::to_string(rep.outside_host) +
                        " device intervals lie outside their host call by more than the tolerance "
                        "(clock conversion error?)");
    int64_t drift = trace.offset_end_ns - trace.offset_begin_ns;
    if (!trace.timestamp_callback && std::llabs(drift) > 100'000)
        notes.push_back("CUPTI clock offset moved by " + std::to_string(drift / 1000) +
                        " us during the run (a clock step?): device times are approximate");
    return notes;
}

}  // namespace xfer::cuda
