#pragma once
#include <string>
#include <vector>

#include "cli/common_options.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

CLI::App* add_list_command(CLI::App& app, CommonOptions& options);

// `xferlab list`: the scenarios with their one-line descriptions.
int cmd_list(const CommonOptions& common);

// How many runs of `plan` need CUDA when its backend resolves to `backend` (the scenario's, or
// the configuration's for "auto"): every run for "cuda", else the runs the host backend skips
// where it stands in for cuda (the ones an asked-for host backend refuses). `list` marks
// scenarios with it.
size_t runs_needing_cuda(const std::vector<Run>& plan, const std::string& backend);

}  // namespace xfer
