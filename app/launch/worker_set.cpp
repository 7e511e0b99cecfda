#include "launch/worker_set.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace xfer {

std::vector<std::unique_ptr<Worker>> prepare_workers(Backend& backend, const Run& run,
                                                     const std::vector<int>& indices) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i : indices) {
        try {
            auto transfer = backend.prepare(run.transfer, i);
            transfer->poison_destination();
            workers.push_back(std::make_unique<Worker>(
                run.index, i, std::move(transfer), run.transfer.repetitions, run.transfer.warmup));
        } catch (const std::exception& e) {
            throw std::runtime_error(
                fmt::format("preparing buffers for worker {} failed: {}", i, e.what()));
        }
    }
    return workers;
}

void end_backend_run(Backend& backend, std::vector<Record>& records,
                     std::vector<std::string>& notes) {
    try {
        backend.end_run(records);
        for (auto& note : backend.take_run_notes()) notes.push_back(std::move(note));
    } catch (const std::exception& e) {
        notes.push_back(std::string("device timestamps unavailable: ") + e.what());
    }
}

std::vector<std::string> verification_failures(std::vector<std::unique_ptr<Worker>>& workers) {
    std::vector<std::string> out;
    for (auto& w : workers)
        if (auto failure = verification_failure(*w)) out.push_back(std::move(*failure));
    return out;
}

}  // namespace xfer
