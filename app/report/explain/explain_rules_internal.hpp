#pragma once
// The rules' functions, one per catalogue entry (explanation_rules.cpp lists them with their
// texts), and what several of them share. Only report/explain/ includes this.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/explain/explanation_rules.hpp"
#include "report/analysis/switches.hpp"

namespace xfer::explain {

// Per run (explain_calls.cpp).
void no_copies(const RuleInput& in, std::vector<Finding>& out);
void calls_one_at_a_time(const RuleInput& in, std::vector<Finding>& out);
void calls_short(const RuleInput& in, std::vector<Finding>& out);
void device_one_at_a_time(const RuleInput& in, std::vector<Finding>& out);
void waiting_not_moving(const RuleInput& in, std::vector<Finding>& out);
void calls_wait(const RuleInput& in, std::vector<Finding>& out);
void idle_window(const RuleInput& in, std::vector<Finding>& out);
// Per run (explain_handoff.cpp).
void hand_off(const RuleInput& in, std::vector<Finding>& out);
void returned_sooner_kept(const RuleInput& in, std::vector<Finding>& out);
void gil_released(const RuleInput& in, std::vector<Finding>& out);
void per_context_in_run(const RuleInput& in, std::vector<Finding>& out);
// Per run (explain_figures.cpp).
void same_aggregate_slower_copies(const RuleInput& in, std::vector<Finding>& out);
void slowest_call(const RuleInput& in, std::vector<Finding>& out);
void unequal_service(const RuleInput& in, std::vector<Finding>& out);
void scaling(const RuleInput& in, std::vector<Finding>& out);
void shared_machine(const RuleInput& in, std::vector<Finding>& out);
// Per run: host pages (any run) and a watched program's references (explain_watched.cpp).
void far_node(const RuleInput& in, std::vector<Finding>& out);
void watched_reference(const RuleInput& in, std::vector<Finding>& out);
// Across runs (explain_summary.cpp, explain_switches.cpp).
void bookkeeping(const RuleInput& in, std::vector<Finding>& out);
void verdicts(const RuleInput& in, std::vector<Finding>& out);
void noise_lists(const RuleInput& in, std::vector<Finding>& out);
void gap_vs_handoff(const RuleInput& in, std::vector<Finding>& out);
void gap_decides(const RuleInput& in, std::vector<Finding>& out);
void context_switch(const RuleInput& in, std::vector<Finding>& out);
// Across runs (explain_interpreters.cpp).
void interpreter_gap(const RuleInput& in, std::vector<Finding>& out);
void gil_serializes_work(const RuleInput& in, std::vector<Finding>& out);
void warmups_in_window(const RuleInput& in, std::vector<Finding>& out);
void failed_runs(const RuleInput& in, std::vector<Finding>& out);

// --- shared ---
// The run's gil when its workers took the GIL around their copies; nullopt when no GIL was
// involved (launchers that never take it, payload-less process workers).
std::optional<GilPolicy> gil_of(const RunResult& run);
// Workers with at least `copies` measured copies.
size_t workers_with(const RunAnalysis& a, size_t copies);
const DeviceStats* device_stats(const RunAnalysis& a, int device);
// A device whose transfers never overlapped, warm-ups included, with 2+ workers on it.
bool serialized(const RunAnalysis& a, const HandoffStats& h);
// Every device of the run had 2+ workers and never two transfers at once (warm-ups included).
bool devices_took_turns(const RunAnalysis& a);
// The mean hand-off rate over the run's serialized devices; nullopt without one.
std::optional<double> serialized_handoff_rate(const RunAnalysis& a);
std::string worker_list(const std::vector<int>& workers);
// A run of the plan with more than one trial: the report then reads by label.
bool plan_has_trials(const Analysis& analysis);
// The runs at plan numbers `runs` as a reader compares them: by label with how many of its
// trials, "'host' (every trial), 'python gil=hold' (2 of 5 trials)", where the plan has trials;
// "runs 1, 6" where it has none; "every run" where that is all of them.
std::string runs_by_label(const Results& results, const std::vector<int>& runs);
// Whether the run was flagged as a shared machine (the shared-machine rule's condition).
bool machine_shared(const RunResult& run);
// What a cause rests on where it is short of the standard, appended to its sentence: "; from
// one trial only (a cause needs 3 trials)" with fewer than kMinCauseTrials trials, and "; 2 of
// the 10 runs it rests on ran on a shared machine" where any of `runs` was flagged as one.
void say_evidence(const Results& results, const std::vector<size_t>& runs, size_t trials,
                  Finding& f);
// Adds `run` as runs field `field`, printed as its label in quotes: a per-run finding that
// points to another run of the plan names it so, the same words in every trial.
Finding& name_run(Finding& f, const std::string& field, const RunResult& run);
// Positions of the runs that share `run`'s label: its trials (itself included).
std::vector<size_t> trials_of(const Results& results, size_t run);

// Two labels of the plan that differ in one setting, with their runs paired trial by trial.
struct SwitchPair {
    std::string label_a, label_b;
    std::vector<std::pair<size_t, size_t>> trials;  // (run of a, run of b), same trial
};

// Every pair of labels whose runs differ in `key` alone (report/analysis/switches.hpp), each pair
// once, in label order.
template <class Field>
std::vector<SwitchPair> switch_pairs(const Results& results, Field key) {
    std::map<std::pair<std::string, std::string>, SwitchPair> pairs;
    for (size_t i = 0; i < results.runs.size(); ++i) {
        for (size_t j : switched_runs(results, i, key)) {
            const RunResult &a = results.runs[i], &b = results.runs[j];
            if (a.position.label >= b.position.label) continue;  // each pair once, in label order
            SwitchPair& p = pairs[{a.position.label, b.position.label}];
            p.label_a = a.position.label;
            p.label_b = b.position.label;
            p.trials.emplace_back(i, j);
        }
    }
    std::vector<SwitchPair> out;
    for (auto& [labels, p] : pairs) out.push_back(std::move(p));
    return out;
}

// The plan numbers of the runs at positions `runs`.
std::vector<int> indexes(const Results& results, const std::vector<size_t>& runs);

// Thresholds named once (the catalogue quotes them).
inline constexpr double kOverlapHostMin = 1.5;    // host-side concurrency that is overlap
inline constexpr double kOverlapFactor = 1.5;     // ... and that many times the device's
inline constexpr double kWaitFraction = 0.25;     // a pre-device wait that is waiting
inline constexpr double kWaitBusy = 0.5;          // ... with another transfer on the device
inline constexpr double kIdleShare = 0.2;         // a window this idle is worth a line
inline constexpr double kSlowFactor = 5;          // a call this much slower than the median
inline constexpr double kQueuedTransfer = 2;      // its transfer within this of the median
inline constexpr double kUnequalJain = 0.9;       // Jain below this is unequal service
inline constexpr double kKeepRunLength = 2.0;     // a worker that kept the device
inline constexpr double kHandRunLength = 1.5;     // a worker that handed it off
inline constexpr size_t kMinSequenceCopies = 5;   // copies on the device to classify a worker
inline constexpr size_t kMinGaps = 5;             // gaps to compare a worker's return
inline constexpr double kGapApart = 1.5;          // keepers' gaps this much shorter
inline constexpr double kHandoffHigh = 0.5;       // a rate that is taking turns
inline constexpr double kPracticalRatio = 0.01;   // differences below 1 % are no difference
inline constexpr double kSignLevel = 0.05;        // a direction from paired trials: sign test p
inline constexpr double kFallBound = 0.05;        // "without falling": the CI rules out more
inline constexpr size_t kMinCauseTrials = 3;      // trials under a cause named without a caveat
inline constexpr double kSwitchLowRate = 0.25;    // gap-decides: the keepers' hand-off rate
inline constexpr double kSwitchHighRate = 0.75;   // ... and the handers'
inline constexpr double kSwitchGapApart = 2;      // ... with gaps this far apart
inline constexpr double kInterpreterGapApart = 1.5;  // interpreter-gap: gap p50s this far apart
inline constexpr double kWorkTurns = 1.5;  // gil-serializes-work: one GIL's added gap this larger
inline constexpr double kTickSeconds = 0.010;     // /proc/stat's USER_HZ tick
inline constexpr double kNotableOthers = 0.5;     // other processes' CPUs worth a line
inline constexpr double kNotableSteal = 0.05;     // steal worth a line on its own
inline constexpr double kStealTicksPerCpu = 100;  // ... over a window of this many ticks

}  // namespace xfer::explain
