#include "cli/local_workers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "backend/backend.hpp"
#include "cli/launchers.hpp"
#include "launch/launcher.hpp"
#include "launch/pthread_workers.hpp"
#include "launch/worker_set.hpp"
#include "results/serialize.hpp"

namespace xfer {
namespace {

void run_payload_or_loops(RunContext& ctx, const std::string& label) {
    if (!ctx.run.spec.payload.empty()) {
        auto python = make_launcher_registry().make("python");
        python->launch(ctx);
        return;
    }
    run_pthread_workers(ctx, "xfer-" + label.substr(0, 4) + "-", [label](RunContext& c, Worker& w) {
        run_worker_loop(w, label, c.run.threads, c.gate, c.stop);
    });
}

}  // namespace

LocalOutcome run_local_workers(const Run& run, Backend& backend, const std::vector<int>& indices,
                               const std::filesystem::path& payload_dir, std::atomic<bool>& stop,
                               const std::string& label, const GateCoordinator& coordinate) {
    LocalOutcome out;
    std::vector<std::unique_ptr<Worker>> workers;
    try {
        workers = prepare_workers(backend, run, indices);
    } catch (const std::exception& e) {
        out.errors.push_back(e.what());
    }

    StartGate gate(int(workers.size()), run.threads.start);
    const bool coordinated = gate.needs_coordination();
    if (coordinated) gate.set_coordinated();
    // Whatever happened above, the other processes wait for this one's word at the barrier.
    if (!out.errors.empty()) gate.abort();
    std::thread coordinator;
    if (coordinated) coordinator = std::thread([&] { coordinate(gate); });

    if (out.errors.empty()) {
        RunContext ctx{run, backend, workers, gate, stop, payload_dir, {}, {}, {}, {}};
        try {
            backend.begin_run(run.transfer);
            run_payload_or_loops(ctx, label);
        } catch (const std::exception& e) {
            ctx.errors.push_back(std::string("launcher failed: ") + e.what());
        }
        gate.abort();  // a launcher that never reached the gate must not leave the coordinator
        for (auto& w : workers) {
            out.records.insert(out.records.end(), w->records().begin(), w->records().end());
            out.threads.push_back(w->thread_info());
        }
        end_backend_run(backend, out.records, ctx.notes);
        if (run.transfer.verify)
            for (auto& failure : verification_failures(workers)) ctx.errors.push_back(failure);
        out.errors.insert(out.errors.end(), ctx.errors.begin(), ctx.errors.end());
        out.notes.insert(out.notes.end(), ctx.notes.begin(), ctx.notes.end());
    }
    if (coordinator.joinable()) coordinator.join();
    return out;
}

std::vector<std::string> merge_notes(const std::vector<std::vector<std::string>>& per_process,
                                     const std::string& unit) {
    std::vector<std::pair<std::string, std::vector<size_t>>> seen;  // note -> processes, in order
    for (size_t k = 0; k < per_process.size(); ++k)
        for (const auto& note : per_process[k]) {
            auto it =
                std::find_if(seen.begin(), seen.end(), [&](auto& e) { return e.first == note; });
            if (it == seen.end()) it = seen.insert(seen.end(), {note, {}});
            if (it->second.empty() || it->second.back() != k) it->second.push_back(k);
        }
    std::vector<std::string> out;
    for (const auto& [note, from] : seen) {
        if (per_process.size() == 1)
            out.push_back(note);
        else if (from.size() == per_process.size())
            out.push_back(fmt::format("each of {} {}: {}", from.size(), unit, note));
        else
            out.push_back(fmt::format("{} {}: {}", unit, fmt::join(from, ", "), note));
    }
    return out;
}

nlohmann::json to_json(const LocalOutcome& o) {
    return {
        {"records", o.records}, {"threads", o.threads}, {"errors", o.errors}, {"notes", o.notes}};
}

LocalOutcome local_outcome_from_json(const nlohmann::json& j) {
    LocalOutcome o;
    o.records = j.at("records").get<std::vector<Record>>();
    o.threads = j.at("threads").get<std::vector<ThreadInfo>>();
    o.errors = j.at("errors").get<std::vector<std::string>>();
    o.notes = j.at("notes").get<std::vector<std::string>>();
    return o;
}

}  // namespace xfer
