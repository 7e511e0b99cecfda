#pragma once
// This process's id without a system call: glibc no longer caches getpid(), and the Python
// module asks on every copy whether it runs in a fork() of the process that made its engine.
// Read once, and again in the child of every fork() (pthread_atfork).
#include <sys/types.h>

namespace xfer {

pid_t process_id();

}  // namespace xfer
