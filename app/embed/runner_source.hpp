#pragma once
// The Python half of the python launcher: loading a payload as a fresh module, running main(ctx)
// on its own thread, the per-run threading.excepthook. Executed into xferlab._runner when the
// embedded module is created.
namespace xfer {

extern const char* const kRunnerSource;

}  // namespace xfer
