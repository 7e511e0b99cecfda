// Launcher "python". The payload is read from disk and compiled at every run (edit, rerun, no
// rebuild) and run in this process's interpreter (embed/payload_run.hpp).
#include "embed/python_launcher.hpp"

#include "embed/interpreter.hpp"
#include "embed/payload_run.hpp"
#include "embed/run_state.hpp"

namespace xfer {
namespace {

class PythonLauncher final : public Launcher {
  public:
    explicit PythonLauncher(std::string thread_label) : thread_label_(std::move(thread_label)) {}
    std::string name() const override { return "python"; }
    bool enforces_timeout() const override { return true; }

    void launch(RunContext& ctx) override {
        std::filesystem::path path;
        std::string source;
        if (!read_run_payload(ctx, path, source)) return;
        ensure_interpreter(ctx.payload_dir);
        run_payload(ctx, std::make_shared<RunState>(ctx, path, thread_label_), source);
    }

  private:
    std::string thread_label_;
};

}  // namespace

std::unique_ptr<Launcher> make_python_launcher(const std::string& thread_label) {
    return std::make_unique<PythonLauncher>(thread_label);
}

void register_python_launchers(LauncherRegistry& registry) {
    registry.add("python", [] { return make_python_launcher(); });
    registry.add("host+gil", make_host_gil_launcher);
}

}  // namespace xfer
