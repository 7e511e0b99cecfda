#include "scenario/trials.hpp"

#include <algorithm>
#include <random>

namespace xfer {

namespace scenario_internal {

void choose_seed(Scenario& s) {
    if (s.order != TrialOrder::shuffled || s.seed_set) return;
    // 31 bits: the seed is written into TOML and JSON, where it must read back as itself.
    s.seed = std::random_device{}() & 0x7fffffffu;
    s.seed_set = true;
}

std::vector<Run> schedule_trials(const std::vector<Run>& runs, const Scenario& s) {
    std::vector<Run> base = runs;
    for (size_t i = 0; i < base.size(); ++i) base[i].position.slot = int(i);
    std::vector<Run> out;
    out.reserve(runs.size() * size_t(s.trials));
    const auto add = [&out](const Run& run, int trial) {
        out.push_back(run);
        out.back().position.trial = trial;
        out.back().position.index = int(out.size()) - 1;
    };
    if (s.order == TrialOrder::grouped) {
        for (const Run& run : base)
            for (int t = 1; t <= s.trials; ++t) add(run, t);
        return out;
    }
    // mt19937_64 and a Fisher-Yates shuffle written here: std::shuffle's algorithm is the
    // library's choice, and a recorded seed must give the same order everywhere.
    std::mt19937_64 rng(s.seed);
    std::vector<size_t> order(base.size());
    for (int t = 1; t <= s.trials; ++t) {
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        if (s.order == TrialOrder::shuffled) {
            for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
        }
        for (size_t i : order) add(base[i], t);
    }
    return out;
}

}  // namespace scenario_internal
}  // namespace xfer
