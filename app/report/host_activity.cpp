#include "report/host_activity.hpp"

#include <fmt/format.h>

namespace xfer {

std::optional<std::string> host_activity_line(const RunResult& run) {
    if (!run.host_activity) return std::nullopt;
    const HostActivity& a = *run.host_activity;
    const bool others = a.others_cpus >= kNotableOtherCpus;
    const bool steal = a.steal_fraction >= kNotableSteal;
    if (!others && !steal) return std::nullopt;
    const char* when = a.span == "copies"
                           ? "the copies ran"
                           : "the run's workers ran (buffers prepared and copies made)";
    std::string line = fmt::format(
        "shared machine: other processes kept {:.1f} of {} CPUs busy while {} (xferlab {:.1f}), "
        "the hypervisor took {:.1f}% of CPU time (steal)",
        a.others_cpus, a.cpus, when, a.own_cpus, a.steal_fraction * 100);
    if (run.launcher == "mpi")
        line += "; the other MPI ranks on this host count as other processes";
    return line + ": the copies may have waited for CPUs or memory bandwidth they shared";
}

}  // namespace xfer
