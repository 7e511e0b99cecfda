"""Statistics of the explanations audit, written from docs/reading-reports.md ("The numbers, and
how each is computed", "Verdicts across trials", "Baseline and noise within one run"), not from
xferlab's code. Standard library only.
"""

import collections
import functools
import math

EXACT_PAIRS = 2500      # Mann-Whitney: exact null distribution up to this many pairs (no ties)


def percentile(values, p):
    """Type 7 (numpy's default), p in [0, 1]; None without values."""
    xs = sorted(values)
    if not xs:
        return None
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def median(values):
    return percentile(values, 0.5)


def mean(values):
    return sum(values) / len(values) if values else 0.0


def sample_stddev(values):
    if len(values) < 2:
        return 0.0
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def cv(values):
    m = mean(values)
    return sample_stddev(values) / m if m else 0.0


def peak(intervals):
    """Most intervals open at one instant; an interval that ends at t and one that starts at t
    do not overlap, and an empty interval is never open."""
    events = []
    for start, end in intervals:
        if end > start:
            events.append((start, 1))
            events.append((end, -1))
    events.sort()
    now = best = 0
    for _, delta in events:
        now += delta
        best = max(best, now)
    return best


def mean_concurrency(intervals):
    """Summed length over the span from the first start to the last end (0 without a span)."""
    if not intervals:
        return 0.0
    span = max(e for _, e in intervals) - min(s for s, _ in intervals)
    return sum(e - s for s, e in intervals) / span if span > 0 else 0.0


def union(intervals):
    """The union of intervals as sorted disjoint pieces (empty intervals left out)."""
    out = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [tuple(p) for p in out]


def covered(pieces, span):
    """Length of `span` that the disjoint `pieces` cover."""
    return sum(max(0, min(e, span[1]) - max(s, span[0])) for s, e in pieces)


def overlaps(interval, window):
    """Whether an interval shares time with the window; an empty one when it lies inside it."""
    start, end = interval
    if end <= start:
        return window[0] <= start <= window[1]
    return min(end, window[1]) - max(start, window[0]) > 0


def share_inside(interval, window):
    """The share of an interval inside the window (an empty one: 1 inside, else 0)."""
    start, end = interval
    if end <= start:
        return 1.0 if window[0] <= start <= window[1] else 0.0
    return max(0, min(end, window[1]) - max(start, window[0])) / (end - start)


def jain(xs):
    """(sum x)^2 / (n sum x^2); 1 without values or when every value is 0."""
    squares = sum(x * x for x in xs)
    if not xs or squares == 0:
        return 1.0
    return sum(xs) ** 2 / (len(xs) * squares)


# ------------------------------------------------------------------------------------------
# Mann-Whitney U on trial aggregates

def sign_test_p(above, below):
    """Two-sided sign test: 2 P(X >= max(above, below)), X ~ Binomial(above + below, 1/2), at
    most 1 (scipy.stats.binomtest(k, n).pvalue)."""
    n, k = above + below, max(above, below)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n)


def smallest_p(m, n):
    """Smallest two-sided exact Mann-Whitney p of m vs n values without ties."""
    if m == 0 or n == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(m + n, m))


@functools.lru_cache(maxsize=None)
def u_counts(m, n):
    """Number of the C(m+n, m) orderings giving each U (0..m*n)."""
    if m == 0 or n == 0:
        return (1,)
    with_last_a = u_counts(m - 1, n)   # the largest value is an a: it beats all n b's
    with_last_b = u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, c in enumerate(with_last_a):
        counts[u + n] += c
    for u, c in enumerate(with_last_b):
        counts[u] += c
    return tuple(counts)


def u_cdf(m, n):
    counts = u_counts(m, n)
    total, run, out = sum(counts), 0, []
    for c in counts:
        run += c
        out.append(run / total)
    return out


def midranks(values):
    ranks, xs, i = {}, sorted(values), 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[i]:
            j += 1
        ranks[xs[i]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mann_whitney_p(a, b):
    """Two-sided p: exact without ties up to EXACT_PAIRS pairs, else the normal approximation
    with tie and continuity correction (scipy.stats.mannwhitneyu's defaults)."""
    m, n = len(a), len(b)
    if not m or not n:
        return 1.0
    ranks = midranks(a + b)
    u = sum(ranks[x] for x in a) - m * (m + 1) / 2
    counter = collections.Counter(a + b)
    if len(counter) == m + n and m * n <= EXACT_PAIRS:
        counts = u_counts(m, n)
        total = sum(counts)
        k = int(round(u))
        low = sum(counts[: k + 1]) / total
        high = sum(counts[k:]) / total
        return min(1.0, 2 * min(low, high))
    tie_term = sum(t ** 3 - t for t in counter.values())
    big = m + n
    sigma = math.sqrt(m * n / 12 * ((big + 1) - tie_term / (big * (big - 1))))
    if sigma == 0:
        return 1.0
    z = (abs(u - m * n / 2) - 0.5) / sigma
    return min(1.0, math.erfc(max(z, 0) / math.sqrt(2)))


def shift_interval(a, b, level):
    """Hodges-Lehmann / Moses: the m*n differences a_i - b_j sorted, [d_(k), d_(mn+1-k)] for the
    largest k with P(U <= k-1) <= (1 - level) / 2; None without such k. Exact sizes only (None
    above EXACT_PAIRS pairs)."""
    m, n = len(a), len(b)
    if not m or not n or m * n > EXACT_PAIRS:
        return None
    alpha2 = (1 - level) / 2
    k = sum(1 for c in u_cdf(m, n) if c <= alpha2 * (1 + 1e-12))
    if k == 0:
        return None
    d = sorted(x - y for x in a for y in b)
    return d[k - 1], d[len(d) - k]


# ------------------------------------------------------------------------------------------
# Noise within one run

def standard_error(cv_value, n, of_median):
    """cv / sqrt(n) for a mean; sqrt(pi/2) times that for a median."""
    if n == 0:
        return 0.0
    se = cv_value / math.sqrt(n)
    return se * math.sqrt(math.pi / 2) if of_median else se


def noise_bound(se_a, se_b):
    """|ln r| is noise up to 2 sqrt(se_a^2 + se_b^2)."""
    return 2 * math.sqrt(se_a ** 2 + se_b ** 2)


def within(ratio, bound):
    return ratio > 0 and abs(math.log(ratio)) <= bound


# ------------------------------------------------------------------------------------------
# Student t interval of a mean (the trials table's "95% CI (mean)")

def t_two_sided(t, df):
    """P(|T| <= t) for Student's t with an integer df >= 1 (Abramowitz and Stegun 26.7.3 and
    26.7.4: finite sums in cos(theta), theta = atan(t / sqrt(df)))."""
    theta = math.atan(abs(t) / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        term, total = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):     # cos + 2/3 cos^3 + 2*4/(3*5) cos^5 + ...
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + math.sin(theta) * total) if df > 1 else 2 * theta / math.pi
    term, total = 1.0, 0.0
    for k in range(1, df // 2 + 1):               # 1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


def t_quantile(level, df):
    """The t with P(|T| <= t) = level (0.95 gives t(0.975, df)), by bisection."""
    low, high = 0.0, 1e6
    for _ in range(200):
        mid = (low + high) / 2
        if t_two_sided(mid, df) < level:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def mean_interval(values, level):
    """docs, "Verdicts across trials": mean +- t(0.975, n-1) s / sqrt(n), its low end at least
    0; None below two values."""
    n = len(values)
    if n < 2:
        return None
    half = t_quantile(level, n - 1) * sample_stddev(values) / math.sqrt(n)
    return max(0.0, mean(values) - half), mean(values) + half
