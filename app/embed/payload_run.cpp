// One payload run in one interpreter (embed/payload_run.hpp).
#include "embed/payload_run.hpp"

#include <pybind11/embed.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "embed/interpreter_locals.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/leaks.hpp"
#include "embed/payload_objects.hpp"
#include "embed/python.hpp"
#include "scenario/payload_files.hpp"
#include "util/clock.hpp"
#include "util/units.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
// After a stop, threads get the run's timeout again, within these bounds, to end.
constexpr int64_t kMinGraceNs = kSecond / 10;
constexpr int64_t kMaxGraceNs = 5 * kSecond;
// Without a timeout: how long threads main(ctx) left running may take before being stopped.
constexpr int64_t kLeftoverWaitNs = 10 * kSecond;

int64_t grace_ns(int64_t timeout_ns) {
    return timeout_ns > 0 ? std::clamp(timeout_ns, kMinGraceNs, kMaxGraceNs) : kMaxGraceNs;
}

double seconds_until(int64_t deadline_ns) {
    return double(std::max<int64_t>(0, deadline_ns - now_ns())) / 1e9;
}

// "['xferlab-main', 'worker-1']"
std::string thread_names(const py::list& threads) {
    py::list names;
    for (auto t : threads) names.append(t.attr("name"));
    return py::repr(names).cast<std::string>();
}

std::string module_name_for(const std::filesystem::path& payload) {
    std::string name = "xferlab_payload_";
    for (char c : payload.stem().string())
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

bool read_file(const std::filesystem::path& path, std::string& source) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    source = text.str();
    return true;
}

// Runs one payload; everything it reports goes into ctx.errors / ctx.notes.
class PayloadRun {
  public:
    PayloadRun(RunContext& ctx, std::shared_ptr<RunState> state)
        : ctx_(ctx),
          state_(std::move(state)),
          path_(state_->payload_path.string()),
          modname_(module_name_for(state_->payload_path)),
          timeout_ns_(ctx.run.settings.timeout_ns) {}

    void execute(const std::string& source) {
        const int64_t start = now_ns();
        deadline_ns_ = timeout_ns_ > 0 ? start + timeout_ns_ : 0;
        py::gil_scoped_acquire gil;
        runner_ = py::module_::import("xferlab").attr("_runner");
        stopped_type_ = py::reinterpret_borrow<py::object>(stopped_exception_type());
        snapshot_ = runner_.attr("snapshot")();
        has_gil_at_start_ = interpreter_has_gil();
        state_->set_interpreter_has_gil(has_gil_at_start_);
        set_current_run(state_);
        try {
            run_payload(source);
        } catch (const py::error_already_set& e) {
            ctx_.errors.push_back("python launcher: " + std::string(e.what()));
        } catch (const std::exception& e) {
            ctx_.errors.push_back("python launcher: " + std::string(e.what()));
        }
        report_thread_errors();
        report_interpreter_lock();
        for (auto& note : state_->notes()) ctx_.notes.push_back("payload: " + note);
        finish();
    }

  private:
    void run_payload(const std::string& source) {
        auto state = state_;
        runner_.attr("install_excepthook")(
            py::cpp_function([state](std::string name, std::string text, bool stopped) {
                state->add_thread_error({std::move(name), std::move(text), stopped});
                // A worker died: the run has failed. Stop the others rather than leave them
                // waiting at the gate for a worker that will never arrive. (GIL held here.)
                if (!stopped && state->open()) {
                    state->request_stop();
                    state->gate().abort();
                }
            }),
            stopped_type_);

        py::tuple loaded = runner_.attr("load")(path_, py::bytes(source), modname_);
        if (!loaded[1].is_none()) {
            ctx_.errors.push_back("payload " + path_ + " failed to load:\n" +
                                  loaded[1].cast<std::string>());
            return;
        }
        py::object main = py::getattr(loaded[0], "main", py::none());
        if (main.is_none() || PyCallable_Check(main.ptr()) == 0) {
            ctx_.errors.push_back("payload " + path_ +
                                  " defines no main(ctx) function: xferlab calls main(ctx) with "
                                  "the run's context (docs/payload-api.md)");
            return;
        }

        py::object context = py::cast(PayloadContext(state_));
        py::object main_thread = runner_.attr("start_main")(
            main, context, py::cpp_function([state](std::string traceback, bool stopped) {
                state->main_finished(std::move(traceback), stopped);
            }),
            stopped_type_);
        context = py::object();  // the payload's threads hold it as long as they need it

        bool main_ended;
        {
            py::gil_scoped_release nogil;
            main_ended = state_->wait_main(deadline_ns_, /*until_stop=*/true);
        }
        if (!main_ended) {
            // Past the deadline, interrupted, or a worker thread died (the hook stopped it).
            timed_out_ = !state_->interrupted() && deadline_ns_ > 0 && now_ns() >= deadline_ns_;
            stop();
            py::gil_scoped_release nogil;
            main_ended = state_->wait_main(grace_deadline(), /*until_stop=*/false);
        }
        if (main_ended) runner_.attr("join_all")(py::make_tuple(main_thread), 1.0);
        report_main();
        // main(ctx) failed: the run has failed; its remaining threads are stopped, not awaited.
        if (main_ended && !state_->main_traceback().empty()) stop();

        py::list left = runner_.attr("new_threads")(snapshot_);
        if (left.empty()) {
            report_stop();
            return;
        }
        if (!stopping()) {
            // main(ctx) returned while its threads still run: wait for them, within the timeout.
            const int64_t wait_end = deadline_ns_ > 0 ? deadline_ns_ : now_ns() + kLeftoverWaitNs;
            py::list still = runner_.attr("join_all")(left, seconds_until(wait_end));
            if (still.empty()) {
                ctx_.notes.push_back("payload main(ctx) returned before its threads " +
                                     thread_names(left) + " ended; xferlab waited for them");
                return;
            }
            timed_out_ = deadline_ns_ > 0;
            leftover_ = deadline_ns_ == 0;
            stop();
            left = still;
        }
        py::list still = runner_.attr("join_all")(left, seconds_until(grace_deadline()));
        if (!still.empty()) {
            remember_leaked_threads(still, ctx_.run.position.index);
            still_running_ = thread_names(still);
        }
        report_stop();
    }

    // xferlab stopped the run (timeout, a failed thread or main, leftovers) or SIGINT did.
    bool stopping() const { return state_->stop_requested(); }

    void stop() {
        state_->request_stop();
        ctx_.gate.abort();  // workers waiting at the gate leave it (and raise Stopped)
        grace_deadline();
    }

    // Threads get this long after the stop to end.
    int64_t grace_deadline() {
        if (grace_deadline_ns_ == 0) grace_deadline_ns_ = now_ns() + grace_ns(timeout_ns_);
        return grace_deadline_ns_;
    }

    void report_main() {
        if (!state_->main_done()) return;
        std::string traceback = state_->main_traceback();
        if (traceback.empty()) return;
        if (state_->main_stopped() && stopping()) return;  // the stop is reported as such
        ctx_.errors.push_back("payload " + path_ + ": main(ctx) raised:\n" + traceback);
    }

    void report_stop() {
        if (!timed_out_ && !leftover_ && still_running_.empty()) return;
        const std::string limit = format_duration_ns(double(timeout_ns_));
        if (timed_out_) {
            ctx_.errors.push_back("payload did not finish within " + limit +
                                  (still_running_.empty()
                                       ? std::string(": xferlab stopped it (its copies raised "
                                                     "xferlab.Stopped)")
                                       : ": threads still running: " + still_running_));
        } else if (leftover_) {
            ctx_.errors.push_back("payload main(ctx) returned but its threads did not end within " +
                                  format_duration_ns(double(kLeftoverWaitNs)) +
                                  (still_running_.empty()
                                       ? std::string("; xferlab stopped them")
                                       : ": threads still running: " + still_running_));
        } else if (!still_running_.empty()) {
            ctx_.errors.push_back(
                "payload stopped (" +
                std::string(state_->interrupted() ? "interrupted" : "the run failed") +
                ") but threads are still running: " + still_running_);
        }
        if (!still_running_.empty())
            ctx_.notes.push_back(
                "python threads were left running: xferlab ends with _exit after writing results "
                "instead of finalizing the interpreter");
    }

    void report_thread_errors() {
        std::vector<std::string> stopped;
        for (const auto& e : state_->thread_errors()) {
            if (e.stopped && stopping()) {
                stopped.push_back(e.thread);
                continue;
            }
            ctx_.errors.push_back("exception in payload thread '" + e.thread + "':\n" +
                                  e.traceback);
        }
        if (!stopped.empty()) {
            std::string names;
            for (const auto& n : stopped) names += (names.empty() ? "'" : ", '") + n + "'";
            ctx_.notes.push_back("payload threads ended by xferlab.Stopped: [" + names + "]");
        }
    }

    // A w.timed() block still open now (its thread stuck or stopped inside it) is closed as a
    // failed record, so that no record leaves the run half written.
    void close_open_timed_blocks() {
        for (int i = 0; i < state_->worker_count(); ++i) {
            Worker& w = state_->worker(i);
            if (!w.in_timed_block()) continue;
            w.end_timed(/*failed=*/true);
            ctx_.notes.push_back("worker " + std::to_string(w.index()) +
                                 ": a w.timed() block was still open when the run ended; "
                                 "recorded as failed");
        }
    }

    // What the payload said about its own copies: labels, its checks, a skip.
    void collect_payload_facts() {
        ctx_.copy_sources = state_->copy_sources();
        ctx_.payload_verified = state_->verified();
        for (const auto& failure : state_->verification_failures()) ctx_.errors.push_back(failure);
        if (!state_->skip_reason().empty()) ctx_.skipped = "payload: " + state_->skip_reason();
    }

    // A free-threaded interpreter says whether its GIL stayed off: an extension module that
    // does not declare free-threading support turns it on when imported, and a run that went
    // on with a GIL did not measure "no GIL". (GIL held or attached.)
    void report_interpreter_lock() {
        if (!embedded_python_free_threaded()) return;
        const bool at_end = interpreter_has_gil();
        if (!has_gil_at_start_ && !at_end) {
            ctx_.notes.push_back("no GIL: " + interpreter_description() +
                                 ", sys._is_gil_enabled() False at the run's start and end");
            return;
        }
        ctx_.errors.push_back(
            "the GIL was on in this free-threaded " + interpreter_description() +
            " (sys._is_gil_enabled() True at the run's " + (has_gil_at_start_ ? "start" : "end") +
            "): an extension module imported without declaring free-threading support turns it "
            "on (Python names it in a RuntimeWarning on stderr), so the run did not measure "
            "threads without a GIL");
    }

    // Process-wide state back as it was; the run closed so that late calls raise Stopped. The
    // calls in flight end (a copy finishes) before the timed blocks they may have left open
    // are closed and the run's facts are read, and before ctx, which holds the workers, goes
    // away.
    void finish() {
        try {
            runner_.attr("restore")(snapshot_, modname_);
        } catch (const py::error_already_set& e) {
            ctx_.notes.push_back("restoring interpreter state: " + std::string(e.what()));
        }
        state_->request_stop();
        state_->close();
        ctx_.gate.abort();
        set_current_run(nullptr);
        snapshot_ = py::object();
        runner_ = py::object();
        stopped_type_ = py::object();
        {
            py::gil_scoped_release nogil;
            state_->wait_no_calls_in_flight();
        }
        close_open_timed_blocks();
        collect_payload_facts();
    }

    RunContext& ctx_;
    std::shared_ptr<RunState> state_;
    std::string path_;
    std::string modname_;
    int64_t timeout_ns_;
    int64_t deadline_ns_ = 0;
    int64_t grace_deadline_ns_ = 0;  // set on the first stop
    bool has_gil_at_start_ = true;
    bool timed_out_ = false;
    bool leftover_ = false;
    std::string still_running_;
    py::object runner_;
    py::object stopped_type_;
    py::object snapshot_;
};

}  // namespace

bool read_run_payload(RunContext& ctx, std::filesystem::path& path, std::string& source) {
    if (ctx.run.settings.payload.empty()) {
        ctx.errors.push_back("launcher " + ctx.run.settings.launcher +
                             " needs a payload: set payload = \"threads.py\" in the [[run]]");
        return false;
    }
    PayloadLookup found = find_payload(ctx.run.settings.payload, {ctx.payload_dir});
    if (!found.file) {
        ctx.errors.push_back("payload '" + ctx.run.settings.payload + "': " + found.error);
        return false;
    }
    path = found.file->path;
    if (!read_file(path, source)) {
        ctx.errors.push_back("payload '" + ctx.run.settings.payload + "': cannot read " +
                             path.string());
        return false;
    }
    return true;
}

void run_payload(RunContext& ctx, std::shared_ptr<RunState> state, const std::string& source) {
    PayloadRun(ctx, std::move(state)).execute(source);
}

}  // namespace xfer
