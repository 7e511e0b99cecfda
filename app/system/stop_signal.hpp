#pragma once
// SIGINT and SIGTERM ask the run to stop: workers finish their current copy, the report is
// written and says "interrupted". A second signal ends the process the default way.
#include <atomic>

namespace xfer {

std::atomic<bool>& stop_requested();
void install_stop_handlers();

}  // namespace xfer
