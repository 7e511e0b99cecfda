#include "run/sizing/fit_plan.hpp"

#include <algorithm>

#include "run/sizing/memory_fit.hpp"
#include "scenario/loader.hpp"
#include "system/memory_limits.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

std::vector<std::string> with_bytes(std::vector<std::string> sets, uint64_t bytes) {
    sets.push_back("transfer.bytes=" + std::to_string(bytes));
    return sets;
}

}  // namespace

FitOutcome fit_plan(const ScenarioWithSets& with_sets, const std::vector<std::string>& sets,
                    PlanRunner& runner, Scenario& scenario, std::vector<Run>& plan) {
    FitRequest request;
    for (const Run& run : plan)
        request.full_bytes = std::max(request.full_bytes, run.settings.transfer.bytes);
    // As one more --set flag on the parsed file rather than by editing the plan: the recorded
    // scenario then says the size that ran, and `--set transfer.bytes=` reproduces it. Runs that
    // set their own transfer.bytes keep it, and their need shows in the refusal.
    request.need = [&](uint64_t bytes) {
        if (bytes == request.full_bytes) return runner.memory_needed(plan).all;
        return runner.memory_needed(expand_plan(with_sets(with_bytes(sets, bytes)))).all;
    };
    const MemoryBudget budget = read_memory_budget();
    const FitChoice choice = fit_copy_size(request, budget);

    FitOutcome out{choice.fits, choice.message, nlohmann::json::object()};
    out.record = {{"requested_bytes", request.full_bytes},
                  {"bytes", choice.bytes},
                  {"reduced", choice.reduced},
                  {"needed_with_headroom", choice.needed},
                  {"free", budget.left()},
                  {"binding_limit", describe(budget.binding())},
                  {"note", choice.message}};
    if (choice.reduced) {
        std::string size = format_size(choice.bytes);  // "64 MiB": the loader reads "64MiB"
        size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
        out.record["set"] = "transfer.bytes=" + size;
        scenario = with_sets(with_bytes(sets, choice.bytes));
        plan = expand_plan(scenario);
    }
    return out;
}

}  // namespace xfer
