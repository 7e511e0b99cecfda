// The gaps taken apart: stages between the stamps each record's gap holds, and the worker
// thread's counters over it.
#include "report/analysis/gap_stages.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/analysis/handoff.hpp"
#include "report/analysis/stats.hpp"
#include "util/format.hpp"

namespace xfer {
namespace {

// The stamps of one gap in time order, those taken: the previous return first, the call last.
std::vector<std::pair<const char*, int64_t>> stamps_of(const Record& r, int64_t previous_end) {
    std::vector<std::pair<const char*, int64_t>> out = {{"return", previous_end}};
    if (r.gap.attached_ns >= 0) out.emplace_back("attached", r.gap.attached_ns);
    if (r.gap.python_ns >= 0) out.emplace_back("python", r.gap.python_ns);
    if (r.gap.entry_ns >= 0) out.emplace_back("entry", r.gap.entry_ns);
    out.emplace_back("start", r.host_start_ns);
    return out;
}

// The stages in the order a gap runs through them.
constexpr const char* kStageOrder[] = {"return>attached", "attached>python", "attached>entry",
                                       "python>entry",    "entry>start",     "return>python",
                                       "return>entry",    "attached>start",  "python>start"};

GapFigure figure_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    GapFigure f;
    f.n = v.size();
    f.p50 = stats::percentile_sorted(v, 0.5);
    f.p90 = stats::percentile_sorted(v, 0.9);
    f.nonzero = size_t(v.end() - std::upper_bound(v.begin(), v.end(), 0.0));
    return f;
}

bool counts_time(ThreadCounter c) {
    return c == ThreadCounter::on_cpu_ns || c == ThreadCounter::runqueue_ns;
}

std::string counter_text(ThreadCounter c, const GapFigure& d) {
    const size_t nonzero = d.nonzero;
    const char* name = thread_counter_name(c);
    if (counts_time(c))
        return fmt::format("{} p50 {} (p90 {})", name, fmtx::duration(d.p50),
                           fmtx::duration(d.p90));
    // Rare (under a tenth of the gaps): how many had any says it all.
    if (d.p90 < 1) return fmt::format("{} in {} of {} gaps", name, nonzero, d.n);
    return fmt::format("{} p50 {:.0f} (p90 {:.0f}; in {} of {} gaps)", name, d.p50, d.p90, nonzero,
                       d.n);
}

}  // namespace

GapStageStats gap_stages_of(const RunResult& run) {
    GapStageStats g;
    const auto before = gaps_before(run.records);
    std::map<std::string, std::vector<double>> stages;
    std::array<std::vector<double>, kThreadCounters> counters;
    for (size_t i = 0; i < run.records.size(); ++i) {
        const Record& r = run.records[i];
        if (r.warmup || r.failed || !before[i] || r.gap.empty()) continue;
        if (r.gap.has_stages()) {
            ++g.staged_gaps;
            const auto stamps = stamps_of(r, r.host_start_ns - *before[i]);
            for (size_t k = 1; k < stamps.size(); ++k)
                stages[std::string(stamps[k - 1].first) + ">" + stamps[k].first].push_back(
                    double(stamps[k].second - stamps[k - 1].second));
        }
        if (r.gap.has_counters()) ++g.counted_gaps;
        for (size_t c = 0; c < kThreadCounters; ++c) {
            if (r.gap.counters[c] == GapProbe::kUnread) continue;
            counters[c].push_back(double(r.gap.counters[c]));
        }
    }
    for (const char* name : kStageOrder)
        if (auto it = stages.find(name); it != stages.end())
            g.stages.emplace_back(name, figure_of(std::move(it->second)));
    for (size_t c = 0; c < kThreadCounters; ++c)
        if (!counters[c].empty()) g.counters[c] = figure_of(std::move(counters[c]));
    return g;
}

std::vector<std::string> gap_stage_lines(const GapStageStats& g) {
    std::vector<std::string> lines;
    if (g.staged_gaps > 0) {
        std::string line = fmt::format("gap stages over {} gaps, p50 (p90):", g.staged_gaps);
        for (size_t i = 0; i < g.stages.size(); ++i) {
            const auto& [name, d] = g.stages[i];
            std::string words = name;
            words.replace(words.find('>'), 1, " to ");
            line += fmt::format("{} {} {} ({})", i ? ";" : "", words, fmtx::duration(d.p50),
                                fmtx::duration(d.p90));
        }
        lines.push_back(line);
    }
    if (g.counted_gaps > 0) {
        std::string line = fmt::format("gap counters over {} gaps:", g.counted_gaps);
        bool first = true;
        for (size_t c = 0; c < kThreadCounters; ++c) {
            if (!g.counters[c]) continue;
            line += (first ? " " : "; ") + counter_text(ThreadCounter(c), *g.counters[c]);
            first = false;
        }
        lines.push_back(line);
    }
    return lines;
}

}  // namespace xfer
