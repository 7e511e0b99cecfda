#pragma once
// SIGINT, SIGTERM and SIGHUP ask the run to stop: workers finish their current copy, the report
// is written and says "interrupted". (SIGHUP: the terminal or the ssh session that ran xferlab
// went away; before issue 54 it ended the process with no partial report and the lock left.)
// A standard stream whose reader went away (`xferlab run ... 2>&1 | head -1`) stops the plan
// the same way (request_stop with SIGPIPE, which `run` ignores: run/plan/plan_execution.cpp).
//
// One stop often brings the signal more than once: `timeout -s INT` sends it to xferlab and
// then to its whole process group, Ctrl-C reaches every process of the foreground group, and
// the process launcher forwards the stop to worker processes that the group signal reached
// already. A repeat therefore belongs to the stop under way and is ignored, until the partial
// report has begun (stop_report_started): from then on a signal that comes more than
// kStopRepeatWindowNs after the first ends the process the default way (the user insists).
// The handler stays installed throughout: had it reset SIGINT to SIG_DFL, a repeat would end
// the process silently, and an embedded Python importing `signal` would take SIGINT over.
#include <signal.h>

#include <atomic>
#include <cstdint>

namespace xfer {

// Repeats closer than this to the first signal are the same stop, even after the report began.
constexpr int64_t kStopRepeatWindowNs = 1'000'000'000;

std::atomic<bool>& stop_requested();
void install_stop_handlers();

// What asked for the stop: SIGINT, SIGTERM, SIGHUP, or what request_stop was given; 0 while no
// stop was asked for.
int stop_cause();
// Asks for the stop as the first signal would, `cause` saying why (stop_cause). Not for a signal
// handler: a later signal is still absorbed as a repeat.
void request_stop(int cause);

// The partial report is being written: a later, separate signal may now end the process.
void stop_report_started();

// SIGINT, SIGTERM and SIGHUP added to `set`.
void add_stop_signals(sigset_t& set);

// Unblocks the stop signals in the calling thread (a worker process is started with them
// blocked so that a group signal waits for its handlers instead of killing it).
void unblock_stop_signals();

}  // namespace xfer
