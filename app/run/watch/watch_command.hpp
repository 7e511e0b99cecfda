#pragma once
// `xferlab watch -- CMD ARGS...` past its arguments: CMD run with the injection library in its
// environment (CUDA_INJECTION64_PATH), its records read back into one run of launcher
// "watched", page-locked reference copies timed on each device it used, and a results folder
// that `report`, `plot` and `compare` read like any other (docs/watch.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/render/reporter.hpp"
#include "run/config.hpp"

namespace xfer {

struct WatchOptions {
    std::vector<std::string> command;  // CMD ARGS
    std::optional<std::string> out;    // --out DIR
    uint64_t min_bytes = 0;            // --min-bytes: smaller copies counted, not recorded
    bool force = false;                // --force: delete an earlier run's files in the folder
    bool quiet = false;                // no list of files written
    bool reference = true;             // --no-reference: no reference copies afterwards
    bool calibrate = false;            // --calibrate: xferlab.copy timed too, on each device
    bool thread_names = true;          // --no-thread-names: no sitecustomize on PYTHONPATH
    std::string format = "table";      // the report on the terminal
    ReportDetail detail = ReportDetail::concise;
};

// The injection library: $XFERLAB_WATCH_LIBRARY, else libxferlab_watch.so beside this
// executable; "" when there is none (this xferlab was built without CUDA).
std::string watch_library();

// Runs the command and reports. Returns the command's exit status (128 + N for a signal N),
// 2 for bad input (nothing was run: no library, a folder that cannot be used), 127 when the
// command cannot be started, 3 when the program succeeded but its results could not be
// written.
int watch_command(const WatchOptions& options, const Config& config);

}  // namespace xfer
