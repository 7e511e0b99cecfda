#pragma once
// The names of CUPTI's copy and memory kinds (CUpti_ActivityMemcpyKind,
// CUpti_ActivityMemoryKind) as xferlab writes them: nvprof's words ("HtoD", "pageable").
// Records of a watched program carry the codes (Record::copy_kind, src_kind, dst_kind); the
// files carry the names. No CUDA header: the codes are CUPTI's documented values.
#include <cstdint>
#include <optional>
#include <string>

namespace xfer {

// "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"; "unknown".
const char* copy_kind_name(uint8_t code);
// "pageable", "pinned", "device", "array", "managed", "device_static", "managed_static";
// "unknown".
const char* memory_kind_name(uint8_t code);
// The code of a name above ("unknown" is a memory kind's code 0, and no copy kind's); nothing
// for another name.
std::optional<uint8_t> copy_kind_code(const std::string& name);
std::optional<uint8_t> memory_kind_code(const std::string& name);

// The codes the report reads by name.
namespace copy_kind {
inline constexpr uint8_t htod = 1, dtoh = 2, dtod = 8, htoh = 9, ptop = 10;
}
namespace memory_kind {
inline constexpr uint8_t pageable = 1, pinned = 2, device = 3, managed = 5;
}

}  // namespace xfer
