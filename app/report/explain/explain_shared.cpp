// What several explanation rules share: the GIL a run took, serialized devices, lists.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain/explain_rules_internal.hpp"
#include "settings/vocabulary.hpp"

namespace xfer::explain {

std::optional<GilPolicy> gil_of(const RunResult& run) {
    // The GIL is the run's business where the launcher takes `gil`: always for a launcher that
    // runs no payload (host+gil) or needs one (python), with a payload for the others.
    const LauncherDescriptor* d = find_launcher(run.settings.launcher);
    if (!d || !gil_applies(d->traits, !run.settings.payload.empty())) return std::nullopt;
    return run.settings.gil;
}

size_t workers_with(const RunAnalysis& a, size_t copies) {
    size_t n = 0;
    for (const WorkerStats& w : a.workers) n += w.copies >= copies ? 1 : 0;
    return n;
}

const DeviceStats* device_stats(const RunAnalysis& a, int device) {
    for (const DeviceStats& d : a.devices)
        if (d.device == device) return &d;
    return nullptr;
}

bool serialized(const RunAnalysis& a, const HandoffStats& h) {
    // Workers as the catalogue counts them on a device: those with a measured device-timed copy
    // there (a warm-up of a worker in the sequence does not make it a second worker).
    const DeviceStats* d = device_stats(a, h.device);
    return h.clock == "device" && d && d->workers >= 2 && d->peak_in_flight == 1;
}

bool devices_took_turns(const RunAnalysis& a) {
    return !a.devices.empty() &&
           std::all_of(a.devices.begin(), a.devices.end(), [](const DeviceStats& d) {
               return d.workers >= 2 && d.peak_in_flight == 1;
           });
}

std::optional<double> serialized_handoff_rate(const RunAnalysis& a) {
    double sum = 0;
    int n = 0;
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        sum += h.handoff_rate;
        ++n;
    }
    if (n == 0) return std::nullopt;
    return sum / n;
}

std::string worker_list(const std::vector<int>& w) {
    return fmt::format("worker{} {}", w.size() == 1 ? "" : "s", fmt::join(w, ", "));
}

std::vector<int> indexes(const Results& results, const std::vector<size_t>& runs) {
    std::vector<int> out;
    for (size_t r : runs) out.push_back(results.runs[r].position.index);
    return out;
}

bool plan_has_trials(const Analysis& analysis) {
    return std::any_of(analysis.groups.begin(), analysis.groups.end(),
                       [](const TrialGroup& g) { return g.runs.size() > 1; });
}

std::string runs_by_label(const Results& results, const std::vector<int>& runs) {
    const bool trials = std::any_of(results.runs.begin(), results.runs.end(),
                                    [](const RunResult& r) { return r.position.trial > 1; });
    if (runs.size() == results.runs.size() && runs.size() > 1) return "every run";
    if (!trials) return run_numbers(runs);
    // Labels in plan order of their first run, each with its trials here and in all.
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> labels;
    for (const RunResult& r : results.runs) {
        auto it = std::find_if(labels.begin(), labels.end(),
                               [&](const auto& l) { return l.first == r.position.label; });
        if (it == labels.end()) it = labels.insert(labels.end(), {r.position.label, {0, 0}});
        ++it->second.second;
        if (std::find(runs.begin(), runs.end(), r.position.index) != runs.end())
            ++it->second.first;
    }
    std::vector<std::string> parts, partial;
    bool every_label = labels.size() >= 3;
    for (const auto& [label, counts] : labels) {
        every_label &= counts.first > 0;
        if (counts.first == 0) continue;
        if (counts.first < counts.second)
            partial.push_back(fmt::format("'{}' in {} of {}", label, counts.first, counts.second));
        parts.push_back(counts.first == counts.second
                            ? fmt::format("'{}' (every trial)", label)
                            : fmt::format("'{}' ({} of {} trials)", label, counts.first,
                                          counts.second));
    }
    // Every label of a plan of several: what is missing is shorter to say.
    if (every_label)
        return fmt::format("every label (every trial but {})", fmt::join(partial, ", "));
    return fmt::format("{}", fmt::join(parts, ", "));
}

void say_evidence(const Results& results, const std::vector<size_t>& runs, size_t trials,
                  Finding& f) {
    if (trials < kMinCauseTrials)
        f.say(trials == 1 ? "; from one trial only (a cause needs {min_trials} trials)"
                          : "; from {cause_trials} trials only (a cause needs {min_trials})")
            .figure("cause_trials", double(trials), std::to_string(trials))
            .figure("min_trials", double(kMinCauseTrials), std::to_string(kMinCauseTrials));
    size_t flagged = 0;
    for (size_t r : runs) flagged += machine_shared(results.runs[r]);
    if (flagged > 0)
        f.say("; {flagged} of the {rests_on} runs it rests on ran on a shared machine, which may "
              "have moved their figures")
            .figure("flagged", double(flagged), std::to_string(flagged))
            .figure("rests_on", double(runs.size()), std::to_string(runs.size()));
}

Finding& name_run(Finding& f, const std::string& field, const RunResult& run) {
    return f.runs(field, {run.position.index}, "'" + run.position.label + "'");
}

std::vector<size_t> trials_of(const Results& results, size_t run) {
    std::vector<size_t> out;
    for (size_t i = 0; i < results.runs.size(); ++i)
        if (results.runs[i].position.label == results.runs[run].position.label) out.push_back(i);
    return out;
}

}  // namespace xfer::explain
