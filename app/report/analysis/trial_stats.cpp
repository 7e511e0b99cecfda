#include "report/analysis/trial_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/analysis/stats.hpp"

namespace xfer::stats {

namespace {

// Counts of the null distribution of U for sample sizes m, n (no ties): entry u is the number
// of the C(m+n, m) orderings with U = u. Recurrence on the largest value: it belongs to the
// first sample (adding n to U) or to the second.
std::vector<double> u_counts(size_t m, size_t n) {
    // f[j][u] for the current i, over j = 0..n.
    std::vector<std::vector<double>> f(n + 1, std::vector<double>(m * n + 1, 0));
    for (size_t j = 0; j <= n; ++j) f[j][0] = 1;  // i = 0: U = 0
    for (size_t i = 1; i <= m; ++i) {
        std::vector<std::vector<double>> g(n + 1, std::vector<double>(m * n + 1, 0));
        g[0][0] = 1;
        for (size_t j = 1; j <= n; ++j) {
            for (size_t u = 0; u <= i * j; ++u) {
                g[j][u] = g[j - 1][u] + (u >= j ? f[j][u - j] : 0);
            }
        }
        f = std::move(g);
    }
    return f[n];
}

// P(U <= u) for each u.
std::vector<double> u_cdf(size_t m, size_t n) {
    std::vector<double> c = u_counts(m, n);
    double total = 0;
    for (double x : c) total += x;
    double run = 0;
    for (double& x : c) {
        run += x;
        x = run / total;
    }
    return c;
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Regularized incomplete beta I_x(a, b) by its continued fraction (Lentz's method).
double beta_cf(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; ++m) {
        const double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = std::fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = std::fabs(c) < tiny ? tiny : c;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < 1e-15) break;
    }
    return h;
}

double incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                  a * std::log(x) + b * std::log(1 - x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double t_cdf(double t, double df) {
    const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double sign_test_p(size_t above, size_t below) {
    const size_t n = above + below, k = std::max(above, below);
    if (n == 0) return 1;
    // P(X >= k) = sum of C(n, i) for i = k..n, over 2^n; the coefficients are exact integers in
    // a double for the trial counts a plan has.
    double sum = 0, c = 1;  // c = C(n, i), from i = n down
    for (size_t i = n; i >= k && i <= n; --i) {
        sum += c;
        c = c * double(i) / double(n - i + 1);
    }
    // A tie of the two sides (k = n / 2) counts its middle term twice: the p is then 1.
    return std::min(1.0, 2 * std::ldexp(sum, -int(n)));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return percentile_sorted(v, 0.5);
}

double smallest_mann_whitney_p(size_t m, size_t n) {
    if (m == 0 || n == 0) return 1;
    // C(m+n, m) as a running product: exact enough for any trial count.
    double combinations = 1;
    for (size_t k = 1; k <= m; ++k) combinations = combinations * double(n + k) / double(k);
    return std::min(1.0, 2 / combinations);
}

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
    MannWhitney out;
    const size_t m = a.size(), n = b.size();
    if (m == 0 || n == 0) return out;
    // Midranks of the pooled sample; the sizes of tied groups for the variance's correction.
    std::vector<std::pair<double, bool>> pooled;
    for (double x : a) pooled.emplace_back(x, true);
    for (double x : b) pooled.emplace_back(x, false);
    std::sort(pooled.begin(), pooled.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    double rank_sum = 0, tie_term = 0;
    for (size_t i = 0; i < pooled.size();) {
        size_t j = i;
        while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
        const double rank = (double(i) + double(j) + 1) / 2;  // ranks i+1 .. j
        for (size_t k = i; k < j; ++k)
            if (pooled[k].second) rank_sum += rank;
        const double t = double(j - i);
        tie_term += t * t * t - t;
        i = j;
    }
    out.u = rank_sum - double(m) * double(m + 1) / 2;
    const double mn = double(m) * double(n);
    const double big = std::max(out.u, mn - out.u);  // the larger of U1, U2
    if (tie_term == 0 && m * n <= kExactPairs) {
        out.exact = true;
        const std::vector<double> cdf = u_cdf(m, n);
        // P(U >= big) = P(U <= mn - big) by symmetry.
        out.p = std::min(1.0, 2 * cdf[size_t(std::llround(mn - big))]);
        return out;
    }
    const double total = double(m + n);
    const double sd = std::sqrt(mn / 12 * ((total + 1) - tie_term / (total * (total - 1))));
    if (sd == 0) return out;
    out.p = std::min(1.0, 2 * normal_sf((big - mn / 2 - 0.5) / sd));
    return out;
}

std::optional<Interval95> shift_interval(const std::vector<double>& a, const std::vector<double>& b,
                                         double level) {
    const size_t m = a.size(), n = b.size();
    if (m == 0 || n == 0) return std::nullopt;
    const double alpha2 = (1 - level) / 2;
    size_t k = 0;  // the largest k with P(U <= k-1) <= alpha/2 (0: none)
    if (m * n <= kExactPairs) {
        const std::vector<double> cdf = u_cdf(m, n);
        while (k < cdf.size() && cdf[k] <= alpha2) ++k;
    } else {
        // Normal approximation of the same quantile.
        const double mn = double(m) * double(n);
        const double sd = std::sqrt(mn * double(m + n + 1) / 12);
        // z for alpha/2 found from the normal survival function by bisection.
        double lo = 0, hi = 10;
        for (int i = 0; i < 100; ++i) {
            const double mid = (lo + hi) / 2;
            (normal_sf(mid) > alpha2 ? lo : hi) = mid;
        }
        const double kk = std::floor(mn / 2 - hi * sd);
        k = kk > 0 ? size_t(kk) : 0;
    }
    if (k == 0) return std::nullopt;
    std::vector<double> d;
    d.reserve(m * n);
    for (double x : a)
        for (double y : b) d.push_back(x - y);
    std::sort(d.begin(), d.end());
    return Interval95{d[k - 1], d[d.size() - k]};
}

double t_quantile(double p, double df) {
    // Bisection on the CDF: monotone, and a handful of calls per report.
    double lo = -1e3, hi = 1e3;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (t_cdf(mid, df) < p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

std::optional<Interval95> mean_interval(const std::vector<double>& v, double level) {
    if (v.size() < 2) return std::nullopt;
    const double m = mean(v);
    const double half = t_quantile(1 - (1 - level) / 2, double(v.size() - 1)) * sample_stddev(v) /
                        std::sqrt(double(v.size()));
    return Interval95{m - half, m + half};
}

}  // namespace xfer::stats
