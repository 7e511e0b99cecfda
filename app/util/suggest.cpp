#include "util/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace xfer {

namespace {

char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(const std::string& s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), lower);
    return out;
}

}  // namespace

int edit_distance_within(const std::string& a_text, const std::string& b_text, int bound) {
    const int n = int(a_text.size()), m = int(b_text.size());
    const int over = bound + 1;  // "more than bound"
    // Every alignment needs at least the difference in length in insertions or deletions.
    if (std::abs(n - m) > bound) return over;
    const std::string a = lowered(a_text), b = lowered(b_text);
    // Three rows of the table (a swap of two neighbours looks two rows back), each computed
    // only within `bound` of the diagonal: a cell further out is more than `bound` already.
    std::vector<int> two_back(size_t(m) + 1, over), prev(size_t(m) + 1, over),
        cur(size_t(m) + 1, over);
    for (int j = 0; j <= std::min(m, bound); ++j) prev[size_t(j)] = j;
    for (int i = 1; i <= n; ++i) {
        const int lo = std::max(1, i - bound), hi = std::min(m, i + bound);
        cur[size_t(lo - 1)] = lo == 1 && i <= bound ? i : over;
        if (hi < m) cur[size_t(hi + 1)] = over;
        int row_min = cur[size_t(lo - 1)];
        for (int j = lo; j <= hi; ++j) {
            const size_t J = size_t(j);
            const int cost = a[size_t(i - 1)] == b[J - 1] ? 0 : 1;
            int d = std::min({prev[J] + 1, cur[J - 1] + 1, prev[J - 1] + cost});
            if (i > 1 && j > 1 && a[size_t(i - 1)] == b[J - 2] && a[size_t(i - 2)] == b[J - 1])
                d = std::min(d, two_back[J - 2] + 1);
            cur[J] = std::min(d, over);
            row_min = std::min(row_min, cur[J]);
        }
        // No cell is below the smallest of the row before (a swap builds on a cell two rows
        // back, at most one less than a cell of the row before): once a whole row exceeds
        // `bound`, so does the distance.
        if (row_min > bound) return over;
        std::swap(two_back, prev);
        std::swap(prev, cur);
    }
    return prev[size_t(m)];
}

int edit_distance(const std::string& a, const std::string& b) {
    return edit_distance_within(a, b, int(std::max(a.size(), b.size())));
}

std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
    // Allow more edits in longer words: one typo in a short word already changes a lot of it.
    const int limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
    std::optional<std::string> best;
    int best_distance = limit + 1;
    for (const auto& c : candidates) {
        const int dist = edit_distance_within(word, c, best_distance - 1);
        // Replacing every letter of a word is no typo ("M" is not a near miss of "B").
        if (dist < best_distance && dist < int(word.size())) {
            best_distance = dist;
            best = c;
        }
    }
    if (best || word.size() < 3) return best;
    // A truncated word ("stagger" for "staggered:") is far in edits but plainly meant.
    for (const auto& c : candidates) {
        if (c.size() > word.size() &&
            std::equal(word.begin(), word.end(), c.begin(),
                       [](char x, char y) { return lower(x) == lower(y); }))
            return c;
    }
    return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    auto c = closest(word, candidates);
    return c ? " (did you mean '" + *c + "'?)" : std::string();
}

}  // namespace xfer
