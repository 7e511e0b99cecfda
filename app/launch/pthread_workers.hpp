#pragma once
// One pthread per worker, created the way a C/C++ program would: pthread_attr for the stack
// (and guard), then from inside the thread its name, signal mask, CPU affinity and scheduling
// policy, then `body`. A worker that throws is recorded in ctx.errors and the start gate is
// aborted so that the others are not left waiting. Returns when every thread has been joined.
// Shared by the host launcher and the Python side's host+gil launcher.
#include <functional>
#include <string>

#include "launch/launcher.hpp"

namespace xfer {

using WorkerBody = std::function<void(RunContext& ctx, Worker& worker)>;

// `name_prefix` + worker index names each thread (15 characters at most: the kernel's limit).
void run_pthread_workers(RunContext& ctx, const std::string& name_prefix, const WorkerBody& body);

}  // namespace xfer
