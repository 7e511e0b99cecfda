#pragma once
// stdout as a place results go: held open from the start, and checked at the end, so that a
// report that did not arrive is not success.
namespace xfer {

// Standard descriptors (0, 1, 2) the process was started without (`xferlab report DIR >&-`)
// are held by /dev/null, opened read-only. Left free, the first file xferlab opened took the
// number: `run` with stdout closed wrote its report into the output lock. Read-only, a write to
// one still fails (EBADF) as it would on the closed descriptor, so the loss is still seen.
void hold_closed_standard_fds();

// Flushes stdout (std::cout and C's stdout) and returns `code` when all that was written to it
// arrived. When some did not (a full disk, /dev/full, a closed stdout), says so on stderr and
// returns 1 (exit_run_failed) in place of 0; a code that already says the command failed is
// kept: it says more.
int exit_code_after_stdout(int code);

}  // namespace xfer
