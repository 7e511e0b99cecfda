#pragma once
// The process's exit codes (documented in docs/command-line.md): `run` decides them, cli returns
// them.
namespace xfer {

enum ExitCode : int {
    exit_ok = 0,            // every run succeeded
    exit_run_failed = 1,    // a run failed (verification, payload error, crashed worker)
    exit_bad_input = 2,     // bad scenario, flag or config; unavailable backend
    exit_write_failed = 3,  // the results could not be written (a full disk): the plan stopped
    exit_interrupted = 130  // SIGINT
};

}  // namespace xfer
