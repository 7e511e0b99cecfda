#pragma once
// The program `xferlab watch` runs: started with posix_spawnp (PATH searched, as a shell would)
// in xferlab's process group with the environment it is given, every signal at its default and
// none blocked; waited for, with signals passed on while it runs. A signal another process sent
// to xferlab (kill, timeout) is passed on to the program; one the terminal sent (Ctrl-C, Ctrl-\)
// reached the whole foreground process group, the program too, and is not sent again. SIGINT
// and SIGTERM also mark the run as stopped.
#include <cstdint>
#include <string>
#include <vector>

namespace xfer {

struct WatchedExit {
    int status = 0;        // waitpid's status
    int exit_code = 0;     // what a shell would give: the status, or 128 + the signal
    std::string ended;     // "exited with status 3", "was killed by SIGKILL"
    bool stopped = false;  // SIGINT or SIGTERM reached xferlab while the program ran
    int64_t start_ns = 0;  // CLOCK_MONOTONIC: spawned, reaped
    int64_t end_ns = 0;
};

// Runs `argv` with environment `env` ("NAME=value" each) to its end. Throws std::runtime_error
// saying why it could not be started ("python4: No such file or directory").
WatchedExit run_watched_process(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env);

// `base` with each "NAME=value" of `set` replacing or adding NAME.
std::vector<std::string> environment_with(const std::vector<std::string>& base,
                                          const std::vector<std::string>& set);
// The process's environment, "NAME=value" each.
std::vector<std::string> current_environment();

}  // namespace xfer
