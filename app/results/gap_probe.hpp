#pragma once
// What the gap before a record is made of ([threads] gap_stages and gap_counters): the gap runs
// from the worker's previous record's return (its host_end_ns) to this record's call
// (host_start_ns). A block of Record, trivially copyable like it (worker processes send records
// as their bytes); empty unless the run asked for it.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "system/thread_counters.hpp"

namespace xfer {

struct GapProbe {
    static constexpr uint32_t kUnread = UINT32_MAX;
    // Host-clock stamps (CLOCK_MONOTONIC ns), -1 where not taken: the thread back in the
    // interpreter after the previous call (the GIL taken again after w.copy(), the end of a
    // w.timed() block's exit), the payload's xferlab.gap_mark() after it, and this call's
    // entry into xferlab (w.copy() or w.timed()).
    int64_t attached_ns = -1;
    int64_t python_ns = -1;
    int64_t entry_ns = -1;
    // The worker thread's counters over the gap (ThreadCounter order), kUnread where not read;
    // saturated at kUnread - 1.
    std::array<uint32_t, kThreadCounters> counters = unread();

    static constexpr std::array<uint32_t, kThreadCounters> unread() {
        std::array<uint32_t, kThreadCounters> a{};
        for (auto& v : a) v = kUnread;
        return a;
    }
    bool has_stages() const { return attached_ns >= 0 || python_ns >= 0 || entry_ns >= 0; }
    bool has_counters() const { return counters != unread(); }
    bool empty() const { return !has_stages() && !has_counters(); }
    bool operator==(const GapProbe&) const = default;
};

// A record's "gap" object (results.json, results.sqlite's gap column, w.records()): the stamps
// taken and the counters read, nothing else. gap_from_json throws std::invalid_argument naming
// a key it does not know or a value that is not a count.
nlohmann::json gap_json(const GapProbe& g);
GapProbe gap_from_json(const nlohmann::json& j);

}  // namespace xfer
