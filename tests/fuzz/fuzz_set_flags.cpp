// libFuzzer target: the fuzz input is one or more --set flags, one per line, applied to a valid
// base scenario that has a [sweep] and [[run]] overrides for the flags to replace (seeds:
// tests/fuzz/corpus/set_flags/).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

// Small but touching every table a flag can reach: defaults, a sweep over a transfer key and
// a threads key, and runs that override keys of their own.
const char* const kBase = R"toml(
[scenario]
name = "fuzz-base"
description = "base scenario of the --set fuzzer"

[transfer]
direction = "h2h"
bytes = "1MiB"
repetitions = 2
warmup = 0

[threads]
count = 2

[[run]]
launcher = "host"
threads.stack_size = "256KiB"

[[run]]
launcher = "python"
payload = "threads.py"
gil = "hold"
transfer.host_memory = "hugepage"

[sweep]
"threads.count" = [1, 2]
)toml";

// At most this many flags: the loader's cost grows with them, not its coverage.
constexpr size_t kMaxFlags = 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> flags;
    size_t begin = 0;
    while (begin <= input.size() && flags.size() < kMaxFlags) {
        size_t end = input.find('\n', begin);
        if (end == std::string::npos) end = input.size();
        flags.push_back(input.substr(begin, end - begin));
        begin = end + 1;
    }
    // The base is read once: only the flags depend on the input (at -O0 with coverage, reading
    // the base again took most of each execution).
    static const xfer::scenario_internal::ScenarioFile base =
        xfer::scenario_internal::read_scenario_text(kBase, "base.toml");
    xfer::fuzz::apply_and_expand(base, flags);
    return 0;
}
