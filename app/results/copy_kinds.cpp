#include "results/copy_kinds.hpp"

#include <array>

namespace xfer {
namespace {

// Index = CUPTI's code.
constexpr std::array<const char*, 11> kCopyKinds = {
    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
constexpr std::array<const char*, 8> kMemoryKinds = {"unknown",       "pageable",      "pinned",
                                                     "device",        "array",         "managed",
                                                     "device_static", "managed_static"};

template <size_t N>
std::optional<uint8_t> code_of(const std::array<const char*, N>& names, const std::string& name,
                               size_t first) {
    for (size_t i = first; i < N; ++i)
        if (name == names[i]) return uint8_t(i);
    return std::nullopt;
}

}  // namespace

const char* copy_kind_name(uint8_t code) {
    return code < kCopyKinds.size() ? kCopyKinds[code] : "unknown";
}

const char* memory_kind_name(uint8_t code) {
    return code < kMemoryKinds.size() ? kMemoryKinds[code] : "unknown";
}

// A watched copy has a kind (0 is "not watched"); its memory may be of a kind CUPTI did not know.
std::optional<uint8_t> copy_kind_code(const std::string& name) {
    return code_of(kCopyKinds, name, 1);
}
std::optional<uint8_t> memory_kind_code(const std::string& name) {
    return code_of(kMemoryKinds, name, 0);
}

}  // namespace xfer
