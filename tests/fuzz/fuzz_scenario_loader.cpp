// libFuzzer target: the fuzz input is a scenario file's text (seeds: scenarios/*.toml).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    xfer::fuzz::parse_and_expand(text, "fuzz.toml", {});
    return 0;
}
