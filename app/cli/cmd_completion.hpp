#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace xfer {

// `xferlab completion bash`: prints a bash completion script generated from `app` (its commands,
// their flags, and what each flag's or argument's value is: a choice, a folder, a file with an
// extension, a --set key) and from the scenario key descriptors, so that it never drifts from
// the program. `invoked_as` (argv[0]) is registered too when it is a path ("build/xferlab").
int cmd_completion(const CLI::App& app, const std::string& shell, const std::string& invoked_as);

// `shell`: the shell the script is for.
CLI::App* add_completion_command(CLI::App& app, std::string& shell);

}  // namespace xfer
