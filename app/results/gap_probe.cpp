// A record's "gap" object: the keys are the stamps' names and the counters' (ThreadCounter).
#include "results/gap_probe.hpp"

#include <stdexcept>
#include <string>

namespace xfer {

using nlohmann::json;

namespace {

struct Stamp {
    const char* name;
    int64_t GapProbe::*field;
};
constexpr Stamp kStamps[] = {{"attached_ns", &GapProbe::attached_ns},
                             {"python_ns", &GapProbe::python_ns},
                             {"entry_ns", &GapProbe::entry_ns}};

int64_t integer_at(const json& v, const std::string& key, int64_t lo, int64_t hi) {
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        throw std::invalid_argument("gap." + key + ": expected an integer from " +
                                    std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                                    v.dump());
    return v.get<int64_t>();
}

}  // namespace

json gap_json(const GapProbe& g) {
    json j = json::object();
    for (const Stamp& s : kStamps)
        if (g.*s.field >= 0) j[s.name] = g.*s.field;
    json counters = json::object();
    for (size_t i = 0; i < kThreadCounters; ++i)
        if (g.counters[i] != GapProbe::kUnread)
            counters[thread_counter_name(ThreadCounter(i))] = g.counters[i];
    if (!counters.empty()) j["counters"] = std::move(counters);
    return j;
}

GapProbe gap_from_json(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("gap: expected an object, got " + j.dump());
    GapProbe g;
    for (const auto& [key, value] : j.items()) {
        if (key == "counters") {
            if (!value.is_object())
                throw std::invalid_argument("gap.counters: expected an object, got " +
                                            value.dump());
            for (const auto& [name, count] : value.items()) {
                const auto c = thread_counter_named(name);
                if (!c) throw std::invalid_argument("gap.counters: unknown counter '" + name + "'");
                g.counters[size_t(*c)] =
                    uint32_t(integer_at(count, "counters." + name, 0, GapProbe::kUnread - 1));
            }
            continue;
        }
        bool known = false;
        for (const Stamp& s : kStamps)
            if (key == s.name) {
                g.*s.field = integer_at(value, key, 0, INT64_MAX);
                known = true;
            }
        if (!known) throw std::invalid_argument("gap: unknown key '" + key + "'");
    }
    return g;
}

}  // namespace xfer
