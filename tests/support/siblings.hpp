#pragma once
// The sibling executables this build was configured to make (cmake/sibling_builds.cmake writes
// build/siblings.json): xferlab-ft and xferlab-py313, for launchers python-ft and
// python-subinterp. A build that makes one must have it; one that does not (the sanitizer builds)
// skips their runs with the reason.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_command.hpp"

namespace xfer::test {

inline nlohmann::json configured_siblings() {
    return nlohmann::json::parse(
        slurp(std::filesystem::path(XFER_BINARY).parent_path() / "siblings.json"));
}

inline bool sibling_configured(const std::string& name) {
    return configured_siblings().contains(name);
}

}  // namespace xfer::test
