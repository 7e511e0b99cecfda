// python-ft and python-subinterp as the plan runner sees them: their workers run elsewhere, in
// one worker process of the executable that has the interpreter they need.
#include "remote/interpreter_launchers.hpp"

#include <fmt/format.h>

#include <functional>
#include <numeric>

#include "backend/backend.hpp"
#include "embed/python.hpp"
#include "remote/sibling_executables.hpp"
#include "remote/worker_processes.hpp"

namespace xfer {
namespace {

// Where the workers run: an executable, or why none can run them.
struct InterpreterHost {
    WorkerProcessPlan plan;  // workers filled in per run
    std::string problem;
};

InterpreterHost self_host() {
    return {
        {.executable = self_executable(), .name = "xferlab", .workers = {}, .parent_python = true},
        ""};
}

InterpreterHost sibling_host(const SiblingExecutable& s) {
    return {{.executable = s.path, .name = s.name, .workers = {}, .parent_python = false},
            s.problem};
}

InterpreterHost free_threaded_host() {
    if (embedded_python_free_threaded()) return self_host();
    return sibling_host(free_threaded_sibling());
}

InterpreterHost subinterpreter_host() {
    const std::string here = subinterpreters_unsupported();
    if (here.empty()) return self_host();
    InterpreterHost host = sibling_host(gil_sibling());
    if (!host.problem.empty())
        host.problem = "this xferlab cannot run sub-interpreters with their own GIL (" + here +
                       "), and " + host.problem;
    return host;
}

class InterpreterProcessLauncher final : public Launcher {
  public:
    // `how`: how the worker process runs the workers, for the run's note.
    InterpreterProcessLauncher(std::string name, std::function<InterpreterHost()> locate,
                               std::string how)
        : name_(std::move(name)), locate_(std::move(locate)), how_(std::move(how)) {}

    std::string name() const override { return name_; }
    // Skipped where no executable has the interpreter its workers need.
    RunHere can_run(const Run&) const override {
        const std::string problem = locate_().problem;
        return problem.empty() ? RunHere::runs() : RunHere::skip(problem);
    }

    void launch(RunContext& ctx) override {
        InterpreterHost host = locate_();
        if (!host.problem.empty()) {
            ctx.errors.push_back("launcher " + name_ + ": " + host.problem);
            return;
        }
        host.plan.workers.resize(size_t(ctx.run.settings.threads.count));
        std::iota(host.plan.workers.begin(), host.plan.workers.end(), 0);
        run_worker_processes(ctx, {host.plan});
        ctx.notes.push_back(fmt::format(
            "1 worker process ({} worker) ran the run's {} workers {}, with one {} context; {}",
            host.plan.name, ctx.run.settings.threads.count, how_,
            ctx.backend.name() == "cuda" ? "CUDA" : "backend", how_records_came_back(ctx)));
    }

  private:
    std::string name_;
    std::function<InterpreterHost()> locate_;
    std::string how_;
};

}  // namespace

std::unique_ptr<Launcher> make_free_threaded_launcher() {
    return std::make_unique<InterpreterProcessLauncher>(
        "python-ft", free_threaded_host, "as Python threads of a free-threaded CPython");
}

std::unique_ptr<Launcher> make_subinterpreter_process_launcher() {
    return std::make_unique<InterpreterProcessLauncher>(
        "python-subinterp", subinterpreter_host, "each in a sub-interpreter with its own GIL");
}

}  // namespace xfer
