// libFuzzer target: the fuzz input is the text of a results.json (seeds:
// tests/fuzz/corpus/results_json/, real results.json files of small runs). What `report` does
// with it: parse, read it as Results (results_from_json: numbers beyond integers, schema,
// indexes, sizes and times checked), then analyse and write every reporter's output.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_results_common.hpp"
#include "results/results_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    return xfer::fuzz::read_then_report([&] { return xfer::results_from_json(j); });
}
