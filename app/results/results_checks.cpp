#include "results/results_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "results/serialize.hpp"
#include "settings/value_checks.hpp"

namespace xfer {
namespace {

using settings_internal::kMaxSize;
using settings_internal::kMaxThreads;

std::string record_problem(const RunResult& run, const Record& r) {
    if (r.run != run.position.index)
        return fmt::format("run {} is not the run that holds it", r.run);
    const int threads = run.settings.threads.count;
    if (r.worker < 0 || r.worker >= threads)
        return fmt::format("worker {} is not one of the run's {} worker{} (0 to {})", r.worker,
                           threads, threads == 1 ? "" : "s", threads - 1);
    if (r.bytes > kMaxSize)
        return fmt::format("size_bytes {} is more than any copy moves (at most 1024 TiB)", r.bytes);
    if (r.host_start_ns < 0 || r.host_end_ns < r.host_start_ns)
        return fmt::format("host_start_ns {} and host_end_ns {} are no span of time",
                           r.host_start_ns, r.host_end_ns);
    if (r.device_start_ns < -1 || r.device_end_ns < -1)  // -1: not measured
        return fmt::format("device_start_ns {} or device_end_ns {} is negative", r.device_start_ns,
                           r.device_end_ns);
    if (r.between_ns < 0) return fmt::format("between_ns {} is negative", r.between_ns);
    return "";
}

std::string device_copy_problem(const RunResult& run, const DeviceCopy& c) {
    if (c.worker < -1 || c.worker >= run.settings.threads.count)
        return fmt::format("worker {} is not one of the run's {} workers", c.worker,
                           run.settings.threads.count);
    if (c.bytes > kMaxSize)
        return fmt::format("size_bytes {} is more than any copy moves", c.bytes);
    return "";
}

// The run's own numbers, before its records are read against them.
std::string run_numbers_problem(const RunResult& run, int planned_runs) {
    const int most = planned_runs > 0 ? planned_runs : int(kMaxPlanRuns);
    const RunPosition& at = run.position;
    if (at.index < 0 || at.index >= most)
        return fmt::format("its index {} is not a run of a plan of {}{} runs", at.index,
                           planned_runs > 0 ? "" : "at most ", most);
    const int threads = run.settings.threads.count;
    if (threads < 0 || threads > kMaxThreads)
        return fmt::format("threads {} is not a thread count (0 to {})", threads, kMaxThreads);
    if (at.trial < 1 || at.trial > int(kMaxPlanRuns))
        return fmt::format("trial {} is not a trial of a plan (1 to {})", at.trial, kMaxPlanRuns);
    if (run.settings.transfer.bytes > kMaxSize)
        return fmt::format("bytes_per_copy {} is more than any copy moves",
                           run.settings.transfer.bytes);
    if (run.start_ns < 0 || run.end_ns < 0)
        return fmt::format("start_ns {} or end_ns {} is negative", run.start_ns, run.end_ns);
    return "";
}

void find_beyond(const nlohmann::json& j, const std::string& where, std::string& found) {
    if (!found.empty()) return;
    if (j.is_number_float()) {
        const double v = j.get<double>();
        if (!(std::abs(v) < 9.2e18)) found = fmt::format("{} is {}", where, j.dump());
    } else if (j.is_object()) {
        for (const auto& [key, value] : j.items()) find_beyond(value, where + "/" + key, found);
    } else if (j.is_array()) {
        for (size_t i = 0; i < j.size() && found.empty(); ++i)
            find_beyond(j[i], where + "/" + std::to_string(i), found);
    }
}

}  // namespace

std::string run_problem(const RunResult& run, int planned_runs) {
    const std::string name = fmt::format("run {} ({})", run.position.index, run.position.label);
    if (std::string p = run_numbers_problem(run, planned_runs); !p.empty()) return name + ": " + p;
    for (size_t i = 0; i < run.records.size(); ++i)
        if (std::string p = record_problem(run, run.records[i]); !p.empty())
            return fmt::format("{}, record {}: {}", name, i, p);
    for (size_t i = 0; i < run.device_copies.size(); ++i)
        if (std::string p = device_copy_problem(run, run.device_copies[i]); !p.empty())
            return fmt::format("{}, device copy {}: {}", name, i, p);
    return "";
}

std::string results_problem(const Results& results) {
    if (results.schema_version != kResultsSchema)
        return fmt::format(
            "it has results schema {}; this xferlab reads schema {} (a newer xferlab wrote it, "
            "or it is not an xferlab results file)",
            results.schema_version, kResultsSchema);
    if (results.runs.size() > kMaxPlanRuns)
        return fmt::format("it holds {} runs, more than any plan has ({})", results.runs.size(),
                           kMaxPlanRuns);
    if (results.planned_runs < 0 || results.planned_runs > int(kMaxPlanRuns))
        return fmt::format("planned_runs {} is not the size of a plan (0 to {})",
                           results.planned_runs, kMaxPlanRuns);
    for (const RunResult& run : results.runs)
        if (std::string p = run_problem(run, results.planned_runs); !p.empty()) return p;
    return "";
}

std::string number_beyond_integers(const nlohmann::json& j) {
    std::string found;
    find_beyond(j, "", found);
    return found;
}

Results results_from_json(const nlohmann::json& j) {
    if (const std::string beyond = number_beyond_integers(j); !beyond.empty())
        throw std::runtime_error(beyond + ": no value of a results file is that large");
    Results results = j.get<Results>();
    if (const std::string problem = results_problem(results); !problem.empty())
        throw std::runtime_error(problem);
    return results;
}

}  // namespace xfer
