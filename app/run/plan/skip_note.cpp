#include "run/plan/skip_note.hpp"

#include <string_view>

namespace xfer {

namespace {
constexpr std::string_view kMark = "skipped: ";
}

void add_skip_note(RunResult& result, const std::string& why, const std::string& subject) {
    result.notes.push_back((subject.empty() ? "" : subject + " ") + std::string(kMark) + why);
}

std::string skip_reason(const RunResult& result) {
    for (const std::string& note : result.notes)
        if (const size_t at = note.find(kMark); at != std::string::npos)
            return note.substr(at + kMark.size());
    return "";
}

}  // namespace xfer
