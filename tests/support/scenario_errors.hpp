#pragma once
// The diagnostics a scenario text gets (tests only): none when it loads.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"

namespace xfer::test {

inline std::vector<Diagnostic> errors_of(const std::string& text,
                                         const std::vector<std::string>& sets = {}) {
    try {
        parse_scenario(text, "bad.toml", sets);
    } catch (const ScenarioError& e) {
        return e.diagnostics();
    }
    return {};
}

}  // namespace xfer::test
