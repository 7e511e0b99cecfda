#pragma once
// The statistics behind the analysis, as plain functions so that tests can check each one
// against hand-computed values. Formulae are documented in docs/reading-reports.md.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace xfer::stats {

// Percentile of sorted values, p in [0, 1]: linear interpolation between the closest ranks
// (h = (n-1)·p; x[floor h] + (h - floor h)·(x[floor h + 1] - x[floor h]); numpy's default,
// Hyndman & Fan type 7). 0 for no values.
double percentile_sorted(const std::vector<double>& sorted, double p);

double mean(const std::vector<double>& v);
// Sample standard deviation (n-1 in the denominator); 0 for fewer than two values.
double sample_stddev(const std::vector<double>& v);

// Jain's fairness index (sum x)^2 / (n · sum x^2): 1 when all equal, 1/n when one takes all.
// 1 for no values or all zeros (nothing to be unfair about).
double jain_index(const std::vector<double>& x);

// A half-open time interval [start, end) in ns.
struct Interval {
    int64_t start = 0;
    int64_t end = 0;
};

// Mean number of intervals in flight over their span (min start .. max end):
// sum of lengths / span. 0 when the span is empty.
double mean_concurrency(const std::vector<Interval>& intervals);
// The share of [begin, end] that lies inside the window [first, last], 0..1. An interval of no
// length counts whole when it lies inside. The one rule for "a copy inside the measurement
// window": the aggregate's bytes and the hand-off sequence both use it.
double fraction_in_window(int64_t begin, int64_t end, int64_t first, int64_t last);
// Largest number of intervals in flight at one instant (sweep over the endpoints; an interval
// ending at t and one starting at t do not overlap).
int peak_concurrency(std::vector<Interval> intervals);
// The union of the intervals: disjoint, in time order (touching intervals merge).
std::vector<Interval> union_of(std::vector<Interval> intervals);
// How much of `span` the union `covered` (from union_of) covers, in ns.
int64_t covered_within(const std::vector<Interval>& covered, Interval span);

// Noise rule for a ratio of two runs' quantities. Each run's relative standard error is
// cv / sqrt(n) (of a mean; times sqrt(pi/2) for a median, its asymptotic efficiency under
// normality). The ratio is within noise when |ln ratio| <= 2 · sqrt(se_a^2 + se_b^2): inside two
// standard errors of the log-ratio (delta method), about 95 % for normal errors.
double relative_standard_error(double cv, size_t n, bool of_median);
double noise_bound(double se_a, double se_b);  // returns the bound on |ln ratio|
bool within_noise(double ratio, double bound);

}  // namespace xfer::stats
