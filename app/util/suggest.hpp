#pragma once
// "did you mean 'x'?" for unknown keys and values: the closest candidate by edit distance.
#include <optional>
#include <string>
#include <vector>

namespace xfer {

// Optimal-string-alignment distance (a swap of two neighbours counts as one edit), ignoring case.
int edit_distance(const std::string& a, const std::string& b);
// The same when it is at most `bound`, else bound + 1: stops as soon as no alignment can stay
// within `bound` (a long unknown word against every key costs little).
int edit_distance_within(const std::string& a, const std::string& b, int bound);

// The closest candidate when it is close enough to be a plausible typo, else nullopt.
std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace xfer
