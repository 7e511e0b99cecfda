#pragma once
// Statistics across trials (a handful of values per run): the Mann-Whitney U test, the
// distribution-free confidence interval of a shift that inverts it, and Student's t interval of
// a mean. Plain functions, unit-tested against scipy's values (tests/unit/test_report_trial_stats).
#include <cstddef>
#include <optional>
#include <vector>

namespace xfer::stats {

struct MannWhitney {
    double u = 0;  // U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
    double p = 1;  // two-sided
    bool exact = false;
};
// Exact null distribution when there are no ties and m·n <= kExactPairs; otherwise the normal
// approximation with tie correction and continuity correction (scipy.stats.mannwhitneyu's
// method="exact" and "asymptotic"). p = 1 when a sample is empty.
constexpr size_t kExactPairs = 2500;
MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b);
// The smallest two-sided p the test can give with m and n values (no ties, every a above every
// b): 2 / C(m+n, m), at most 1. 0.1 for 3 vs 3, 0.057 for 3 vs 4, 0.029 for 4 vs 4. A test
// whose smallest p is not below the level cannot find anything, whatever the data.
double smallest_mann_whitney_p(size_t m, size_t n);

struct Interval95 {
    double low = 0;
    double high = 0;
};
// The confidence interval of the shift d in "a = b + d" that inverts the two-sided Mann-Whitney
// test at `level` (Hodges-Lehmann / Moses): with the m·n differences a_i - b_j sorted, it is
// [d_(k), d_(mn+1-k)] for the largest k with P(U <= k-1) <= (1-level)/2. nullopt when even
// k = 1 has too little confidence (fewer than 4 values per side at 95 %).
std::optional<Interval95> shift_interval(const std::vector<double>& a, const std::vector<double>& b,
                                         double level);

// Two-sided Student-t confidence interval of the mean at `level`; nullopt for fewer than 2
// values.
std::optional<Interval95> mean_interval(const std::vector<double>& v, double level);

// The quantile of Student's t distribution with `df` degrees of freedom, p in (0, 1).
double t_quantile(double p, double df);

// The two-sided sign test of paired differences: `above` pairs on one side of zero, `below` on
// the other (ties left out): 2 * P(X >= max(above, below)) for X ~ Binomial(above + below,
// 1/2), at most 1; 1 with no pairs. Five pairs all one way give 0.0625: a direction from paired
// trials needs six (0.031) to reach 5 % (scipy.stats.binomtest(k, n).pvalue).
double sign_test_p(size_t above, size_t below);

// The median of values (unsorted); 0 for none.
double median(std::vector<double> v);

}  // namespace xfer::stats
