#pragma once
// Signal names for threads.signal_mask. The scenario loader keeps its own small table (named
// apart from results/thread_info.hpp's signal_number) so that it links without the results
// module's thread capture code.
#include <optional>
#include <string>
#include <vector>

namespace xfer::scenario_internal {

// "SIGINT" -> 2; also "SIGRTMIN+n" and "SIGRTMAX-n". Exact, upper-case names only.
std::optional<int> scenario_signal_number(const std::string& name);
// 2 -> "SIGINT"; realtime signals as "SIGRTMIN+n"; unknown numbers as "SIG<n>".
std::string scenario_signal_name(int signo);
// The fixed names, for did-you-mean.
const std::vector<std::string>& scenario_signal_names();

}  // namespace xfer::scenario_internal
