#pragma once
// The process's exit codes (documented in docs/command-line.md): `run` decides them, cli returns
// them.
namespace xfer {

enum ExitCode : int {
    exit_ok = 0,             // every run succeeded
    exit_run_failed = 1,     // a run failed (verification, payload error, crashed worker)
    exit_bad_input = 2,      // bad scenario, flag or config; unavailable backend
    exit_write_failed = 3,   // the results could not be written (a full disk): the plan stopped
    exit_interrupted = 130,  // SIGINT, SIGTERM, SIGHUP
    // stdout or stderr lost its reader (a closed pipe): the plan stopped as on SIGINT, its files
    // written. 128 + SIGPIPE, what a shell shows for a process that SIGPIPE ended.
    exit_stream_closed = 141
};

}  // namespace xfer
