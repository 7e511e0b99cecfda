#pragma once
// What every interpreter that runs payloads gets: the main one when xferlab starts it, and each
// sub-interpreter of launcher python-subinterp when it is created.
#include <filesystem>
#include <vector>

namespace xfer {

// On the thread that started the interpreter, with its GIL held: `threading` imported there
// (its shutdown joins from the thread that imported it first), the module `xferlab` imported
// (failing here rather than in a payload), os._exit routed through xferlab (the run is recorded
// as failed first), sys.argv ["xferlab"], no relative entry left in sys.path, `payload_dirs`
// in front of it (in the order given: the first is searched first), and sys.stdout / sys.stderr
// sending each payload line to xferlab's stderr with the run and worker that wrote it. Throws
// std::runtime_error.
void set_up_interpreter(const std::vector<std::filesystem::path>& payload_dirs);

}  // namespace xfer
