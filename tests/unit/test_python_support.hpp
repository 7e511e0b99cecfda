#pragma once
// Runs built by hand (no scenario loader) on the host backend with tiny buffers, launched by
// the python launchers the way the plan runner launches them; payloads in a fresh temp folder.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "launch/launcher.hpp"
#include "launch/native_launchers.hpp"
#include "launch/worker.hpp"
#include "embed/python.hpp"

namespace xfer::test {

inline std::filesystem::path temp_payload_dir() {
    std::string templ = (std::filesystem::temp_directory_path() / "xferlab-py-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return templ;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The repository's python_payloads/ folder.
inline std::filesystem::path repo_payloads() {
    return std::filesystem::path(XFER_SOURCE_DIR) / "python_payloads";
}

struct PyHarness {
    Run run;
    std::unique_ptr<Backend> backend = make_host_backend();
    std::vector<std::unique_ptr<Worker>> workers;
    std::atomic<bool> stop{false};
    std::filesystem::path payload_dir;
    std::vector<std::string> errors;
    std::vector<std::string> notes;

    PyHarness(std::filesystem::path dir, const std::string& payload, int threads,
              int repetitions = 3, int warmup = 1, uint64_t bytes = 64 << 10)
        : payload_dir(std::move(dir)) {
        run.position.index = 1;
        run.position.label = "test";
        run.settings.launcher = "python";
        run.settings.payload = payload;
        run.settings.threads.count = threads;
        run.settings.transfer.bytes = bytes;
        run.settings.transfer.repetitions = repetitions;
        run.settings.transfer.warmup = warmup;
    }

    // Fresh buffers, then the launcher.
    void launch(const std::string& launcher = "python") {
        workers.clear();
        for (int i = 0; i < run.settings.threads.count; ++i) {
            auto t = backend->prepare(run.settings.transfer, i);
            t->poison_destination();
            workers.push_back(std::make_unique<Worker>(run.position.index, i, std::move(t),
                                                       run.settings.transfer.repetitions,
                                                       run.settings.transfer.warmup));
        }
        launch_on_workers(launcher);
    }

    // The launcher again on the same workers and buffers (records and ThreadInfo cleared):
    // comparisons without the noise of fresh allocations (page placement, huge pages).
    void relaunch(const std::string& launcher) {
        for (auto& w : workers) {
            w->records().clear();
            w->thread_info() = ThreadInfo{};
        }
        launch_on_workers(launcher);
    }

    void launch_on_workers(const std::string& launcher) {
        run.settings.launcher = launcher;
        StartGate gate(run.settings.threads.count, run.settings.threads.start);
        RunContext ctx{.run = run,
                       .backend = *backend,
                       .workers = workers,
                       .gate = gate,
                       .stop = stop,
                       .payload_dir = payload_dir};
        LauncherRegistry registry;
        register_native_launchers(registry);
        register_python_launchers(registry);
        auto l = registry.make(launcher);
        if (!l) throw std::runtime_error("no launcher " + launcher);
        l->launch(ctx);
        errors = ctx.errors;
        notes = ctx.notes;
    }

    std::string all_errors() const {
        std::string out;
        for (const auto& e : errors) out += e + "\n---\n";
        return out;
    }
    std::string all_notes() const {
        std::string out;
        for (const auto& n : notes) out += n + "\n";
        return out;
    }
    size_t copies(int worker) const { return workers[size_t(worker)]->records().size(); }
    const ThreadInfo& info(int worker) const { return workers[size_t(worker)]->thread_info(); }
};

}  // namespace xfer::test
