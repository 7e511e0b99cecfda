#include "remote/local_workers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "launch/copy_loop.hpp"
#include "launch/pthread_workers.hpp"
#include "embed/python_launcher.hpp"
#include "embed/subinterpreter_launcher.hpp"
#include "results/serialize.hpp"

namespace xfer {
namespace {

// The share of a run that a worker process or rank holds, on pthreads labelled "process" or
// "mpi" with the run's thread settings: the host launcher's threads and loop.
class LocalThreads final : public Launcher {
  public:
    explicit LocalThreads(std::string label) : label_(std::move(label)) {}
    std::string name() const override { return label_; }
    // Named after the launcher it serves, but its workers are this process's threads.
    const LauncherTraits& traits() const override {
        static const LauncherTraits threads_here{};
        return threads_here;
    }
    void launch(RunContext& ctx) override {
        const std::string label = label_;
        run_pthread_workers(ctx, "xfer-" + label.substr(0, 4) + "-",
                            [label](RunContext& c, Worker& w) {
                                run_worker_loop(w, label, c.run.settings.threads, c.gate,
                                                {&c.stop, nullptr, c.deadline});
                            });
    }

  private:
    std::string label_;
};

// What runs this process's share: the launcher's own workers where it has them here
// (python-subinterp's sub-interpreters, python-ft's Python threads without a GIL), a payload's
// threads, or the share's pthreads.
std::unique_ptr<Launcher> local_launcher(const Run& run, const std::string& label) {
    if (run.settings.launcher == "python-subinterp") return make_subinterpreter_launcher();
    if (run.settings.launcher == "python-ft") return make_python_launcher("python-ft");
    if (!run.settings.payload.empty()) return make_python_launcher();
    return std::make_unique<LocalThreads>(label);
}

}  // namespace

LocalOutcome run_local_workers(const Run& run, Backend& backend, const std::vector<int>& indices,
                               const std::filesystem::path& payload_dir, std::atomic<bool>& stop,
                               const std::string& label, const GateCoordinator& coordinate,
                               RecordWatcher* watcher) {
    std::unique_ptr<Launcher> launcher = local_launcher(run, label);
    if (const RunHere here = launcher->can_run(run); here.verdict != RunHere::Verdict::runs) {
        LocalOutcome out;
        out.errors.push_back("launcher " + run.settings.launcher +
                             " cannot run here: " + here.reason);
        return out;
    }
    return execute_workers(
        {run, backend, *launcher, indices, payload_dir, stop, coordinate, watcher});
}

nlohmann::json to_json(const LocalOutcome& o) {
    nlohmann::json j = {{"records", o.records},
                        {"threads", o.threads},
                        {"helper_threads", o.helper_threads},
                        {"errors", o.errors},
                        {"notes", o.notes}};
    if (!o.copy_sources.empty()) {
        j["copy_sources"] = o.copy_sources;
        j["device_copies"] = o.device_copies;
    }
    if (!o.payload_verified.empty())
        j["payload_verified"] = worker_texts_to_json(o.payload_verified);
    if (!o.skipped.empty()) j["skipped"] = o.skipped;
    return j;
}

void merge_payload_facts(LocalOutcome& o, RunContext& ctx) {
    // Each process numbered its timed blocks' labels in its own order: renumber into the run's.
    std::vector<uint16_t> renumber(o.copy_sources.size() + 1, 0);
    for (size_t i = 0; i < o.copy_sources.size(); ++i) {
        auto& all = ctx.copy_sources;
        auto it = std::find(all.begin(), all.end(), o.copy_sources[i]);
        if (it == all.end()) it = all.insert(all.end(), o.copy_sources[i]);
        renumber[i + 1] = uint16_t(it - all.begin() + 1);
    }
    for (Record& r : o.records)
        if (r.source > 0 && r.source < renumber.size()) r.source = renumber[r.source];
    ctx.remote_device_copies.insert(ctx.remote_device_copies.end(), o.device_copies.begin(),
                                    o.device_copies.end());
    ctx.payload_verified.insert(o.payload_verified.begin(), o.payload_verified.end());
    if (ctx.skipped.empty()) ctx.skipped = o.skipped;
}

LocalOutcome local_outcome_from_json(const nlohmann::json& j) {
    LocalOutcome o;
    o.records = j.at("records").get<std::vector<Record>>();
    o.threads = j.at("threads").get<std::vector<ThreadInfo>>();
    o.helper_threads = j.at("helper_threads").get<std::vector<HelperThread>>();
    o.errors = j.at("errors").get<std::vector<std::string>>();
    o.notes = j.at("notes").get<std::vector<std::string>>();
    o.copy_sources = j.value("copy_sources", std::vector<std::string>{});
    o.device_copies = j.value("device_copies", std::vector<DeviceCopy>{});
    if (auto v = j.find("payload_verified"); v != j.end())
        o.payload_verified = worker_texts_from_json(*v);
    o.skipped = j.value("skipped", "");
    return o;
}

}  // namespace xfer
