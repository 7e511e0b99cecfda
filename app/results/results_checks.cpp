#include "results/results_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

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

// A copy recorded twice: each worker numbers its copies (warm-ups from -warmup), so a second
// record of one worker and repetition is a copy of a row (a crafted results.sqlite or
// results.json with duplicated rows made a 1-thread run 8x faster, at "concurrency 8.0").
// The one whose second record comes first in the file.
std::string duplicate_record(const RunResult& run) {
    std::vector<std::pair<uint64_t, size_t>> seen;  // (worker, repetition) packed, record
    seen.reserve(run.records.size());
    for (size_t i = 0; i < run.records.size(); ++i) {
        const Record& r = run.records[i];
        seen.emplace_back(uint64_t(uint32_t(r.worker)) << 32 | uint32_t(r.repetition), i);
    }
    std::sort(seen.begin(), seen.end());
    size_t first = 0, again = SIZE_MAX;
    for (size_t k = 1; k < seen.size(); ++k)
        if (seen[k].first == seen[k - 1].first && seen[k].second < again)
            std::tie(first, again) = std::pair(seen[k - 1].second, seen[k].second);
    if (again == SIZE_MAX) return "";
    const Record& r = run.records[again];
    return fmt::format(
        "record {}: worker {}, repetition {} again (record {} is that copy): each copy is "
        "recorded once, so this one is a duplicated row",
        again, r.worker, r.repetition, first);
}

// A run index twice in one file: two plans' runs joined, or a duplicated row.
std::string duplicate_run(const Results& results) {
    std::map<int, size_t> first;  // index -> its place in the file
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const int index = results.runs[i].position.index;
        if (auto [at, fresh] = first.emplace(index, i); !fresh)
            return fmt::format(
                "it holds run {} twice (its runs number {} and {} in file order): a plan has "
                "each run once, so these are two plans' runs joined, or a duplicated row",
                index, at->second + 1, i + 1);
    }
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

// Subtrees the reader keeps as JSON or reads by type-checked hand (host, devices), or does not
// read (analysis, trial_groups: `report` computes them again): their floats are no integer's.
bool free_form(const std::string& key) {
    static const char* const keys[] = {"analysis", "trial_groups", "summary", "scenario",
                                       "params",   "overrides",    "sizing",  "command",
                                       "host",     "devices"};
    for (const char* k : keys)
        if (key == k) return true;
    return false;
}

// The fields xferlab writes as floats outside those subtrees (HostActivity's averages).
bool float_field(const std::string& key) {
    return key == "busy_cpus" || key == "own_cpus" || key == "others_cpus" ||
           key == "steal_fraction";
}

// The first number no field of a results file holds: beyond +-2^63 anywhere, or a float where
// xferlab writes an integer (converting 4.09e11 into an int is undefined behaviour in the JSON
// library, and 1.5 would be read as 1 without a word).
void find_no_field(const nlohmann::json& j, const std::string& where, const std::string& key,
                   bool typed, std::string& found) {
    if (!found.empty()) return;
    if (j.is_number_float()) {
        const double v = j.get<double>();
        if (!(std::abs(v) < 9.2e18))
            found =
                fmt::format("{} is {}: no value of a results file is that large", where, j.dump());
        else if (typed && !float_field(key))
            found = fmt::format("{} is {}, where xferlab writes an integer", where, j.dump());
    } else if (j.is_object()) {
        for (const auto& [k, value] : j.items())
            find_no_field(value, where + "/" + k, k, typed && !free_form(k), found);
    } else if (j.is_array()) {
        for (size_t i = 0; i < j.size() && found.empty(); ++i)
            find_no_field(j[i], where + "/" + std::to_string(i), key, typed, found);
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
    if (std::string p = duplicate_record(run); !p.empty()) return name + ", " + p;
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
    if (std::string p = duplicate_run(results); !p.empty()) return p;
    for (const RunResult& run : results.runs)
        if (std::string p = run_problem(run, results.planned_runs); !p.empty()) return p;
    return "";
}

std::string number_no_field_holds(const nlohmann::json& j) {
    std::string found;
    find_no_field(j, "", "", true, found);
    return found;
}

Results results_from_json(const nlohmann::json& j) {
    if (const std::string number = number_no_field_holds(j); !number.empty())
        throw std::runtime_error(number);
    Results results = j.get<Results>();
    if (const std::string problem = results_problem(results); !problem.empty())
        throw std::runtime_error(problem);
    return results;
}

}  // namespace xfer
