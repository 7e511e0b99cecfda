#pragma once
// One line per run on stderr; on a terminal, a live line with the elapsed time while a run
// is in progress.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

class Progress {
  public:
    Progress(bool enabled, int total);
    ~Progress();
    void begin(const Run& run);
    // `stats` is the run's own analysis (computed once by the caller and reused).
    void end(const RunResult& result, const RunAnalysis& stats);

  private:
    void stop_ticker();

    bool enabled_;
    bool tty_;
    int total_;
    std::string current_;
    std::chrono::steady_clock::time_point started_;
    std::thread ticker_;
    std::atomic<bool> ticking_{false};
    std::mutex mutex_;
};

}  // namespace xfer
