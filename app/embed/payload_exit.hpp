#pragma once
// os._exit(n) from a payload, routed through xferlab (installed when the interpreter starts).
namespace xfer {

// Called by the wrapped os._exit with the payload's GIL held. Runs the handler set with
// set_payload_exit_handler() (which records the run and ends the process); without one, or
// in a forked child (multiprocessing ends its children with os._exit), ends the process at
// once as os._exit does.
[[noreturn]] void payload_exit(int code);

}  // namespace xfer
