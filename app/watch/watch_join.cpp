#include "watch/watch_join.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "watch/capture.hpp"

namespace xfer::watch {
namespace {

// The id of the outermost call around `correlation`, or 0 where no call has that id.
uint32_t outermost(const std::unordered_map<uint32_t, const TraceCall*>& calls,
                   uint32_t correlation) {
    auto it = calls.find(correlation);
    if (it == calls.end()) return 0;
    const uint32_t outer = it->second->api.outer;
    return outer != 0 && calls.count(outer) ? outer : correlation;
}

void add_part(JoinedCall& c, int64_t start, int64_t end, uint64_t bytes, uint32_t device,
              uint32_t context, uint32_t stream) {
    if (c.parts == 0) {
        c.device_start_ns = start;
        c.device_end_ns = end;
        c.device = int(device);
        c.context = context;
        c.stream = stream;
    } else {
        c.device_start_ns = std::min(c.device_start_ns, start);
        c.device_end_ns = std::max(c.device_end_ns, end);
    }
    c.bytes += bytes;
    ++c.parts;
}

void take_sample(JoinedCall& c, const xw_numa& s) {
    c.sampled_pages = std::min<int>(s.pages, XW_NUMA_PAGES);
    c.host_node = majority_node(s.node, c.sampled_pages, &c.pages_on_node);
}

}  // namespace

JoinedProcess join_process(const ProcessTrace& t) {
    JoinedProcess out;
    out.pid = t.pid;
    int64_t offset = 0;
    if (!t.clock) {
        out.clock = "no clock record: device times taken as CLOCK_MONOTONIC";
    } else if (t.clock->timestamp_callback) {
        out.clock = "CLOCK_MONOTONIC (CUPTI timestamp callback)";
    } else {
        offset = t.clock->offset_ns;
        out.clock = "CUPTI clock + offset sampled against CLOCK_MONOTONIC";
    }
    std::unordered_map<uint32_t, const TraceCall*> by_id;
    by_id.reserve(t.calls.size());
    for (const TraceCall& c : t.calls) by_id[c.api.correlation] = &c;

    std::unordered_map<uint32_t, JoinedCall> joined;  // by the outermost call's id
    const auto call_for = [&](uint32_t driver_id, uint32_t runtime_id) -> JoinedCall* {
        uint32_t id = driver_id ? outermost(by_id, driver_id) : 0;
        if (id == 0 && runtime_id) id = outermost(by_id, runtime_id);
        if (id == 0) return nullptr;
        return &joined[id];
    };
    for (const xw_memcpy& a : t.copies) {
        JoinedCall* c = call_for(a.correlation, a.runtime_correlation);
        if (!c) {
            ++out.activity_without_call;
            continue;
        }
        if (c->parts == 0) {
            c->copy_kind = a.copy_kind;
            c->src_kind = a.src_kind;
            c->dst_kind = a.dst_kind;
        }
        add_part(*c, int64_t(a.start) + offset, int64_t(a.end) + offset, a.bytes, a.device,
                 a.context, a.stream);
    }
    for (const xw_memset& a : t.memsets) {
        JoinedCall* c = call_for(a.correlation, 0);
        if (!c) {
            ++out.activity_without_call;
            continue;
        }
        c->memset = true;
        c->dst_kind = a.memory_kind;
        add_part(*c, int64_t(a.start) + offset, int64_t(a.end) + offset, a.bytes, a.device,
                 a.context, a.stream);
    }
    for (const TraceCall& call : t.calls) {
        const xw_api& a = call.api;
        if (a.outer != 0 && by_id.count(a.outer)) continue;  // nested: its outermost call counts
        auto it = joined.find(a.correlation);
        if (it == joined.end()) {
            if (a.flags & XW_API_MEMSET) continue;  // memsets are not copies: not counted
            if (a.result != 0)
                ++out.failed_calls;
            else
                ++out.calls_without_activity;
            continue;
        }
        JoinedCall& c = it->second;
        c.pid = t.pid;
        c.tid = call.tid;
        c.correlation = a.correlation;
        c.function = function_name(t, a.domain, a.cbid);
        c.memset = c.memset || (a.flags & XW_API_MEMSET);
        c.cpu = a.cpu;
        c.result = a.result;
        c.host_start_ns = a.start_ns;
        c.host_end_ns = a.end_ns;
        if (auto s = t.samples.find(a.correlation); s != t.samples.end()) take_sample(c, s->second);
        out.calls.push_back(std::move(c));
    }
    std::sort(out.calls.begin(), out.calls.end(), [](const JoinedCall& a, const JoinedCall& b) {
        return a.host_start_ns < b.host_start_ns;
    });
    return out;
}

}  // namespace xfer::watch
