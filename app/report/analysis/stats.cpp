#include "report/analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace xfer::stats {

double percentile_sorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    p = std::clamp(p, 0.0, 1.0);
    const double h = double(sorted.size() - 1) * p;
    const size_t lo = size_t(std::floor(h));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return 0;
    double sum = 0;
    for (double x : v) sum += x;
    return sum / double(v.size());
}

double sample_stddev(const std::vector<double>& v) {
    if (v.size() < 2) return 0;
    const double m = mean(v);
    double ss = 0;
    for (double x : v) ss += (x - m) * (x - m);
    return std::sqrt(ss / double(v.size() - 1));
}

double jain_index(const std::vector<double>& x) {
    double sum = 0, sum_sq = 0;
    for (double v : x) {
        sum += v;
        sum_sq += v * v;
    }
    if (x.empty() || sum_sq == 0) return 1;
    return sum * sum / (double(x.size()) * sum_sq);
}

double mean_concurrency(const std::vector<Interval>& intervals) {
    if (intervals.empty()) return 0;
    int64_t first = intervals.front().start, last = intervals.front().end;
    double busy = 0;
    for (const auto& i : intervals) {
        first = std::min(first, i.start);
        last = std::max(last, i.end);
        busy += double(i.end - i.start);
    }
    if (last <= first) return 0;
    return busy / double(last - first);
}

int peak_concurrency(std::vector<Interval> intervals) {
    // +1 at each start, -1 at each end; at equal times ends come first so that touching
    // intervals (one ends as the next begins, as serialized copies do) count as one in flight.
    std::vector<std::pair<int64_t, int>> events;
    events.reserve(intervals.size() * 2);
    for (const auto& i : intervals) {
        if (i.end <= i.start) continue;  // empty: never in flight
        events.emplace_back(i.start, +1);
        events.emplace_back(i.end, -1);
    }
    std::sort(events.begin(), events.end());  // (t, -1) sorts before (t, +1)
    int now = 0, peak = 0;
    for (const auto& e : events) {
        now += e.second;
        peak = std::max(peak, now);
    }
    return peak;
}

std::vector<Interval> union_of(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> out;
    for (const Interval& i : intervals) {
        if (i.end <= i.start) continue;
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
}

int64_t covered_within(const std::vector<Interval>& covered, Interval span) {
    if (span.end <= span.start) return 0;
    // The first piece that ends after the span starts, then every piece up to its end.
    auto it = std::upper_bound(covered.begin(), covered.end(), span.start,
                               [](int64_t t, const Interval& i) { return t < i.end; });
    int64_t total = 0;
    for (; it != covered.end() && it->start < span.end; ++it)
        total += std::min(it->end, span.end) - std::max(it->start, span.start);
    return total;
}

double fraction_in_window(int64_t begin, int64_t end, int64_t first, int64_t last) {
    if (end <= begin) return begin >= first && begin <= last ? 1.0 : 0.0;
    const int64_t overlap = std::min(end, last) - std::max(begin, first);
    return overlap > 0 ? double(overlap) / double(end - begin) : 0.0;
}

double relative_standard_error(double cv, size_t n, bool of_median) {
    if (n == 0) return 0;
    const double se = cv / std::sqrt(double(n));
    return of_median ? se * std::sqrt(std::numbers::pi / 2) : se;
}

double noise_bound(double se_a, double se_b) { return 2 * std::sqrt(se_a * se_a + se_b * se_b); }

bool within_noise(double ratio, double bound) {
    if (!(ratio > 0)) return false;
    return std::abs(std::log(ratio)) <= bound;
}

}  // namespace xfer::stats
