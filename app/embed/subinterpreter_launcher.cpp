// Launcher python-subinterp inside its worker process: a host thread per worker creates a
// sub-interpreter with its own GIL, sets it up as xferlab sets up its main interpreter, and runs
// the payload there (embed/payload_run.hpp) for that one worker. The run's start gate, stop flag
// and w.timed() labels are shared; each interpreter's errors and notes are its own.
#include "embed/subinterpreter_launcher.hpp"

#include <fmt/format.h>
#include <pybind11/embed.h>

#include <string>
#include <thread>
#include <vector>

#include "launch/merge_notes.hpp"
#include "embed/interpreter.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/python.hpp"

// pybind11 3 runs modules and threads in sub-interpreters (pybind11/subinterpreter.h), with
// CPython 3.12 or later; a free-threaded build has no GIL for a sub-interpreter to own.
#if PYBIND11_VERSION_MAJOR >= 3 && defined(PYBIND11_HAS_SUBINTERPRETER_SUPPORT) && \
    !defined(Py_GIL_DISABLED)
#define XFER_SUBINTERPRETERS 1
#include <pybind11/subinterpreter.h>

#include "embed/interpreter_locals.hpp"
#include "embed/interpreter_setup.hpp"
#include "embed/leaks.hpp"
#include "embed/payload_run.hpp"
#include "embed/run_state.hpp"
#endif

namespace py = pybind11;

namespace xfer {

std::string subinterpreters_unsupported() {
#if defined(XFER_SUBINTERPRETERS)
    return "";
#elif defined(Py_GIL_DISABLED)
    return "the embedded Python (" + interpreter_description() +
           ") has no GIL for a sub-interpreter to own";
#elif PY_VERSION_HEX < 0x030C0000
    return "the embedded Python is " PY_VERSION
           ": a sub-interpreter with a GIL of its own needs 3.12 or later (PEP 684)";
#elif PYBIND11_VERSION_MAJOR < 3
    return "xferlab was built with pybind11 " + std::to_string(PYBIND11_VERSION_MAJOR) + "." +
           std::to_string(PYBIND11_VERSION_MINOR) +
           ", which runs no module in sub-interpreters (pybind11 3 does)";
#else
    return "pybind11 has no sub-interpreter support on this platform";
#endif
}

namespace {

#if defined(XFER_SUBINTERPRETERS)

// What one sub-interpreter's run left.
struct InterpreterOutcome {
    int64_t id = -1;  // the interpreter's id (the main one is 0)
    std::vector<std::string> errors;
    std::vector<std::string> notes;
    std::map<int, std::string> payload_verified;
    std::string skipped;
};

// Isolated as PEP 684 needs (its own allocator and GIL, single-phase extension modules
// refused), threads allowed; daemon threads too, because the payload's main(ctx) runs on one
// (xferlab-main) so that a payload that hangs cannot hang xferlab.
PyInterpreterConfig own_gil_config() {
    PyInterpreterConfig config{};
    config.use_main_obmalloc = 0;
    config.allow_fork = 0;
    config.allow_exec = 0;
    config.allow_threads = 1;
    config.allow_daemon_threads = 1;
    config.check_multi_interp_extensions = 1;
    config.gil = PyInterpreterConfig_OWN_GIL;
    return config;
}

struct SharedRun {
    const std::filesystem::path& payload;
    const std::string& source;
    std::vector<std::filesystem::path> payload_dirs;  // in sys.path order
    std::shared_ptr<CopySources> labels;
};

// On a host thread of its own: worker `worker`'s sub-interpreter, from creation to its end.
InterpreterOutcome run_in_subinterpreter(RunContext& ctx, Worker& worker, const SharedRun& shared) {
    InterpreterOutcome out;
    std::vector<std::unique_ptr<Worker>> none;  // the workers are the RunState's, not its ctx's
    RunContext mine{.run = ctx.run,
                    .backend = ctx.backend,
                    .workers = none,
                    .gate = ctx.gate,
                    .stop = ctx.stop,
                    .payload_dir = ctx.payload_dir};
    try {
        py::subinterpreter sub = py::subinterpreter::create(own_gil_config());
        out.id = sub.id();
        bool left_threads = false;
        {
            py::subinterpreter_scoped_activate active(sub);
            set_up_interpreter(shared.payload_dirs);
            run_payload(mine,
                        std::make_shared<RunState>(mine, shared.payload, "python-subinterp",
                                                   std::vector<Worker*>{&worker}, shared.labels),
                        shared.source);
            left_threads = leaked_threads_alive_in_this_interpreter();
            forget_this_interpreter();
        }
        if (left_threads) {
            // Ending it would wait for those threads, or fail on them: it stays, and the
            // process ends with _exit (python_threads_leaked()).
            sub.disarm();
            remember_leaked_subinterpreter();
        }
    } catch (const std::exception& e) {
        mine.errors.push_back(std::string("sub-interpreter: ") + e.what());
        mine.gate.abort();  // the others must not wait at the gate for this worker
    }
    out.errors = std::move(mine.errors);
    out.notes = std::move(mine.notes);
    out.payload_verified = std::move(mine.payload_verified);
    out.skipped = std::move(mine.skipped);
    return out;
}

void merge_outcomes(RunContext& ctx, std::vector<InterpreterOutcome>& outcomes,
                    const SharedRun& shared) {
    std::vector<std::vector<std::string>> notes;
    for (size_t k = 0; k < outcomes.size(); ++k) {
        InterpreterOutcome& o = outcomes[k];
        for (auto& e : o.errors)
            ctx.errors.push_back(fmt::format("worker {} (sub-interpreter {}): {}",
                                             ctx.workers[k]->index(), o.id, e));
        notes.push_back(std::move(o.notes));
        ctx.payload_verified.insert(o.payload_verified.begin(), o.payload_verified.end());
        if (ctx.skipped.empty()) ctx.skipped = o.skipped;
    }
    ctx.copy_sources = shared.labels->labels();
    ctx.notes.push_back(fmt::format(
        "{} sub-interpreters of {}, one per worker (sub-interpreter k runs worker k), each with "
        "its own GIL (PEP 684); main(ctx) ran in each with ctx.threads = 1",
        outcomes.size(), interpreter_description()));
    for (auto& note : merge_notes(notes, "sub-interpreters")) ctx.notes.push_back(note);
}

#endif

class SubinterpreterLauncher final : public Launcher {
  public:
    std::string name() const override { return "python-subinterp"; }
    bool enforces_timeout() const override { return true; }
    // Named after the launcher it serves (whose workers are in a worker process), but inside
    // that process its workers are this process's.
    const LauncherTraits& traits() const override {
        static const LauncherTraits here{
            .takes_payload = true, .needs_payload = true, .takes_gil = true};
        return here;
    }
    // Skipped where the embedded Python has no sub-interpreters with their own GIL.
    RunHere can_run(const Run&) const override {
        const std::string why = subinterpreters_unsupported();
        return why.empty() ? RunHere::runs() : RunHere::skip(why);
    }

    void launch(RunContext& ctx) override {
#if defined(XFER_SUBINTERPRETERS)
        std::filesystem::path path;
        std::string source;
        if (!read_run_payload(ctx, path, source)) return;
        Interpreter& main = ensure_interpreter(ctx.payload_dir);
        // add_payload_dir puts each new folder in front: sys.path holds them newest first.
        const auto dirs = main.payload_dirs();
        SharedRun shared{
            path, source, {dirs.rbegin(), dirs.rend()}, std::make_shared<CopySources>()};
        std::vector<InterpreterOutcome> outcomes(ctx.workers.size());
        std::vector<std::thread> hosts;
        for (size_t k = 0; k < ctx.workers.size(); ++k)
            hosts.emplace_back(
                [&, k] { outcomes[k] = run_in_subinterpreter(ctx, *ctx.workers[k], shared); });
        for (auto& t : hosts) t.join();
        merge_outcomes(ctx, outcomes, shared);
#else
        ctx.errors.push_back("launcher python-subinterp: " + subinterpreters_unsupported());
#endif
    }
};

}  // namespace

std::unique_ptr<Launcher> make_subinterpreter_launcher() {
    return std::make_unique<SubinterpreterLauncher>();
}

}  // namespace xfer
