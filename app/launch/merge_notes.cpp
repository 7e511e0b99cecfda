#include "launch/merge_notes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace xfer {

std::vector<std::string> merge_notes(const std::vector<std::vector<std::string>>& per_process,
                                     const std::string& unit) {
    std::vector<std::pair<std::string, std::vector<size_t>>> seen;  // note -> processes, in order
    for (size_t k = 0; k < per_process.size(); ++k)
        for (const auto& note : per_process[k]) {
            auto it =
                std::find_if(seen.begin(), seen.end(), [&](auto& e) { return e.first == note; });
            if (it == seen.end()) it = seen.insert(seen.end(), {note, {}});
            if (it->second.empty() || it->second.back() != k) it->second.push_back(k);
        }
    std::vector<std::string> out;
    for (const auto& [note, from] : seen) {
        if (per_process.size() == 1)
            out.push_back(note);
        else if (from.size() == per_process.size())
            out.push_back(fmt::format("each of {} {}: {}", from.size(), unit, note));
        else
            out.push_back(fmt::format("{} {}: {}", unit, fmt::join(from, ", "), note));
    }
    return out;
}

}  // namespace xfer
