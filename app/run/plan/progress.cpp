#include "run/plan/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "run/plan/skip_note.hpp"
#include "util/terminal_text.hpp"
#include "util/thread_start.hpp"
#include "util/units.hpp"

namespace xfer {

namespace {

// A run's error under its progress line: its own line breaks kept (a Python traceback), each line
// indented under "error:", so that none starts a line of its own; other control characters
// escaped.
std::string error_text(const std::string& error) {
    std::string_view text = error;
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    std::string out = "    error: ";
    for (const char c : terminal_safe_lines(text)) {
        out += c;
        if (c == '\n') out += "      ";
    }
    return out + "\n";
}

}  // namespace

Progress::Progress(bool enabled, int total)
    : enabled_(enabled), tty_(enabled && isatty(STDERR_FILENO)), total_(total) {}

Progress::~Progress() { stop_ticker(); }

void Progress::stop_ticker() {
    ticking_ = false;
    if (ticker_.joinable()) ticker_.join();
}

void Progress::begin(const Run& run) {
    if (!enabled_) return;
    // "[3/40]" counts how far the plan is; "run 2" is the run's number, as every report names
    // it. The size is shown because `run --fit` may have chosen it for this machine.
    // The label as the terminal may show it (util/terminal_text.hpp): from the scenario file,
    // it may hold an ESC sequence, a line break or a NUL (where printf would stop).
    current_ = fmt::format("[{}/{}] run {}: {} ({} thread{}, copies of {})", run.position.index + 1,
                           total_, run.position.index, terminal_safe(run.position.label),
                           run.settings.threads.count, run.settings.threads.count == 1 ? "" : "s",
                           format_size(run.settings.transfer.bytes));
    started_ = std::chrono::steady_clock::now();
    if (!tty_) return;
    ticking_ = true;
    // Where no thread can start the live line is left out: the run's own line still comes.
    std::string no_thread;
    ticker_ = start_thread(
        [this] {
            while (ticking_) {
                double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started_)
                        .count();
                {
                    std::lock_guard lock(mutex_);
                    std::fprintf(stderr, "\r\033[K%s ... %.1f s", current_.c_str(), s);
                    std::fflush(stderr);
                }
                for (int i = 0; i < 5 && ticking_; ++i)
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        },
        no_thread);
}

void Progress::end(const RunResult& result, const RunAnalysis& a) {
    if (!enabled_) return;
    stop_ticker();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    std::string rate = a.copies > 0 && a.window_s > 0
                           ? format_bandwidth(a.aggregate_Bps) + " aggregate"
                           : "no measured copies";
    // A skipped run says why on its line.
    if (result.status == RunStatus::skipped)
        if (std::string why = skip_reason(result); !why.empty()) rate = terminal_safe(why);
    std::fprintf(stderr, "%s%s: %s, %s (%.1f s)\n", tty_ ? "\r\033[K" : "", current_.c_str(),
                 to_string(result.status), rate.c_str(), s);
    for (const auto& e : result.errors) std::fputs(error_text(e).c_str(), stderr);
    std::fflush(stderr);
}

}  // namespace xfer
