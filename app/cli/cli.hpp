#pragma once
// The command line: parse, dispatch, exit codes. main() only calls run_cli.
namespace xfer {

// Exit codes (documented in README.md).
enum ExitCode : int {
    exit_ok = 0,            // every run succeeded
    exit_run_failed = 1,    // a run failed (verification, payload error, crashed worker)
    exit_bad_input = 2,     // bad scenario, flag or config; unavailable backend
    exit_write_failed = 3,  // the results could not be written (a full disk): the plan stopped
    exit_interrupted = 130  // SIGINT
};

int run_cli(int argc, char** argv);

}  // namespace xfer
