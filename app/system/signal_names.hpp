#pragma once
// Signal names ("SIGINT") and numbers, both ways, for scenario files, thread masks and reports.
#include <optional>
#include <string>

namespace xfer {

// Unknown numbers print as "SIG<n>"; realtime signals relative to SIGRTMIN ("SIGRTMIN+3").
std::string signal_name(int signo);
// "INT", "SIGINT", "sigint", "SIGRTMIN+2", "40": the number, or nullopt.
std::optional<int> signal_number(const std::string& name);

}  // namespace xfer
