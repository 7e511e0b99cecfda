#include "scenario/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace xfer::scenario_internal {

int edit_distance(const std::string& a, const std::string& b) {
    auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = 0; i <= n; ++i) d[i][0] = int(i);
    for (size_t j = 0; j <= m; ++j) d[0][j] = int(j);
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j) {
            const int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1])) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[n][m];
}

std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
    // Allow more edits in longer words: one typo in a short word already changes a lot of it.
    const int limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
    std::optional<std::string> best;
    int best_distance = limit + 1;
    for (const auto& c : candidates) {
        const int dist = edit_distance(word, c);
        // Replacing every letter of a word is no typo ("M" is not a near miss of "B").
        if (dist < best_distance && dist < int(word.size())) {
            best_distance = dist;
            best = c;
        }
    }
    if (best || word.size() < 3) return best;
    // A truncated word ("stagger" for "staggered:") is far in edits but plainly meant.
    for (const auto& c : candidates) {
        if (c.size() > word.size() && edit_distance(c.substr(0, word.size()), word) == 0) return c;
    }
    return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    auto c = closest(word, candidates);
    return c ? " (did you mean '" + *c + "'?)" : std::string();
}

}  // namespace xfer::scenario_internal
