#pragma once
// The memory check of the preflight (`run`, `check`, `run --fit`): the plan's largest run
// against what this process can really get (system/memory_limits.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "launch/launcher.hpp"
#include "system/memory_limits.hpp"

namespace xfer {

// Host memory of the largest run. Runs execute one after another and release their buffers,
// so the peak is the largest run, not the sum.
struct PlanMemory {
    uint64_t all = 0;          // every worker of the run: what the machine and cgroup must hold
    uint64_t one_process = 0;  // what one process maps: the address-space limit is per process
};

// Adds one run's need, spread evenly over `processes` (the run's workers where each is a
// process of its own, launchers "process" and "mpi"; else 1: one process holds it all).
void add_run_need(PlanMemory& peak, const Backend::Need& need, int processes);

// Empty when the plan fits; else the message, naming the limit that binds.
std::string memory_problem(const PlanMemory& need, const MemoryBudget& budget);

}  // namespace xfer
