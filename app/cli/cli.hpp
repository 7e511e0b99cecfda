#pragma once
// The command line: parse, dispatch, exit codes. main() only calls run_cli.
#include "run/exit_codes.hpp"

namespace xfer {

int run_cli(int argc, char** argv);

}  // namespace xfer
