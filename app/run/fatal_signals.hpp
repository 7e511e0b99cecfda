#pragma once
// A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), e.g. a payload calling
// ctypes.string_at(0), ends the process; before it does, this handler writes which run was
// executing and where the completed runs are, then re-raises the signal so that the exit
// status, core dump and any debugger see the original crash.
#include <string>

namespace xfer {

// Installs the handlers (idempotent), with an alternate stack for the calling thread so that
// a stack overflow there is reported too.
void install_fatal_signal_handlers();

// The text the handler writes after "xferlab: crashed (SIGSEGV) ". Called between runs,
// never from a signal handler; an empty text writes nothing but the signal's name.
void set_crash_context(const std::string& text);

}  // namespace xfer
