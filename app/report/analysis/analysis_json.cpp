#include "report/analysis/analysis_json.hpp"

#include "report/analysis/trial_analysis.hpp"
#include "results/serialize.hpp"

namespace xfer {

using nlohmann::json;

namespace {

template <typename T>
json optional_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

}  // namespace

void to_json(json& j, const Distribution& d) {
    j = json{{"n", d.n},     {"min", d.min},   {"p10", d.p10},       {"p50", d.p50}, {"p90", d.p90},
             {"max", d.max}, {"mean", d.mean}, {"stddev", d.stddev}, {"cv", d.cv}};
}

void to_json(json& j, const Comparison& c) {
    j = json{{"baseline_run", c.baseline_run},
             {"aggregate_ratio", c.aggregate_ratio},
             {"p50_ratio", c.p50_ratio},
             {"within_noise", c.within_noise},
             {"p50_within_noise", c.p50_within_noise},
             {"aggregate_noise_ln", c.aggregate_noise},
             {"p50_noise_ln", c.p50_noise},
             {"judged", c.judged},
             {"verdict", c.verdict}};
}

void to_json(json& j, const WorkerStats& w) {
    j = json{{"worker", w.worker},
             {"tid", w.tid},
             {"device", w.device},
             {"copies", w.copies},
             {"bytes", w.bytes},
             {"window_s", w.window_s},
             {"Bps", w.Bps},
             {"share", w.share},
             {"service_Bps", w.service_Bps},
             {"per_copy_Bps", w.per_copy_Bps},
             {"device_per_copy_Bps", optional_json(w.device_per_copy_Bps)},
             {"gap_ns", optional_json(w.gap_ns)},
             {"run_length", w.run_length}};
}

void to_json(json& j, const DeviceStats& d) {
    j = json{{"device", d.device},
             {"workers", d.workers},
             {"copies", d.copies},
             {"window_s", d.window_s},
             {"concurrency", d.concurrency},
             {"peak", d.peak},
             {"peak_in_flight", d.peak_in_flight},
             {"host_concurrency", d.host_concurrency},
             {"call_p50_ns", d.call_p50_ns},
             {"wait_p50_ns", d.wait_p50_ns},
             {"wait_busy_fraction", d.wait_busy_fraction}};
}

void to_json(json& j, const Finding& f) {
    json claim = json::object(), figures = json::object(), runs = json::object();
    for (const FindingField& field : f.fields) switch (field.kind) {
            case FindingField::Kind::claim: claim[field.name] = field.text; break;
            case FindingField::Kind::figure: figures[field.name] = field.value; break;
            case FindingField::Kind::runs: runs[field.name] = field.runs; break;
        }
    j = json{{"rule", f.rule}, {"text", f.text()}, {"claim", claim}, {"figures", figures},
             {"runs", runs}};
}

void to_json(json& j, const HandoffStats& h) {
    j = json{{"device", h.device},
             {"clock", h.clock},
             {"copies", h.copies},
             {"warmup_copies", h.warmup_copies},
             {"workers", h.workers},
             {"handoffs", h.handoffs},
             {"handoff_rate", h.handoff_rate},
             {"mean_run_length", h.mean_run_length},
             {"contexts", h.contexts},
             {"context_peak", h.context_peak},
             {"context_workers", h.context_workers},
             {"gap_ns", optional_json(h.gap_ns)}};
}

void to_json(json& j, const RunAnalysis& a) {
    j = json{{"run", a.run},
             {"copies", a.copies},
             {"warmup_copies", a.warmup_copies},
             {"bytes", a.bytes},
             {"window_s", a.window_s},
             {"aggregate_Bps", a.aggregate_Bps},
             {"window_bytes", a.window_bytes},
             {"warmup_copies_in_window", a.warmup_copies_in_window},
             {"per_copy_Bps", a.per_copy_Bps},
             {"per_copy_ns", a.per_copy_ns},
             {"device_per_copy_Bps", optional_json(a.device_per_copy_Bps)},
             {"pre_device_ns", optional_json(a.pre_device_ns)},
             {"per_worker_Bps", a.per_worker_Bps},
             {"workers", a.workers},
             {"fairness_jain", a.fairness_jain},
             {"service_jain", a.service_jain},
             {"host_concurrency", a.host_concurrency},
             {"host_peak", a.host_peak},
             {"device_concurrency", optional_json(a.device_concurrency)},
             {"device_peak", optional_json(a.device_peak)},
             {"devices", a.devices},
             {"gap_ns", optional_json(a.gap_ns)},
             {"handoffs", a.handoffs},
             {"start_spread_ns", a.start_spread_ns},
             {"scaling", optional_json(a.scaling)},
             {"scaling_reference", optional_json(a.scaling_reference)},
             {"scaling_within_noise", optional_json(a.scaling_within_noise)},
             {"is_baseline", a.is_baseline},
             {"vs_baseline", optional_json(a.vs_baseline)},
             {"thread_differences", a.thread_differences},
             {"idle_fraction", a.idle_fraction},
             {"calls_hold_transfers", a.calls_hold_transfers},
             {"service_jain_without_slowest", optional_json(a.service_jain_without_slowest)},
             {"explanations", texts(a.findings)},
             {"findings", a.findings}};
    if (!a.staging_helpers.empty()) j["staging_helpers"] = a.staging_helpers;
    if (a.watched) j["watched"] = *a.watched;
    if (!a.host_nodes.empty()) {
        j["host_nodes"] = nlohmann::json::array();
        for (const HostNodes& n : a.host_nodes) {
            nlohmann::json on = nlohmann::json::object();
            for (const auto& [node, c] : n.copies_on) on[std::to_string(node)] = c;
            j["host_nodes"].push_back({{"device", n.device},
                                       {"nearest_node", n.nearest_node},
                                       {"copies", n.copies},
                                       {"sampled", n.sampled},
                                       {"copies_on", on}});
        }
    }
    if (!a.timed_blocks.labels.empty()) {
        j["timed_blocks"] = a.timed_blocks;
        j["timed_blocks_verified"] = worker_texts_to_json(a.timed_blocks.verified);
    }
}

void to_json(json& j, const TrialComparison& c) {
    j = json{{"baseline_group", c.baseline_group},
             {"ratio", c.ratio},
             {"ci_low", optional_json(c.ci_low)},
             {"ci_high", optional_json(c.ci_high)},
             {"p", c.p},
             {"test", "mann-whitney-u"},
             {"trials", c.trials},
             {"baseline_trials", c.baseline_trials},
             {"finding", finding_name(c.finding)},
             {"verdict", c.verdict}};
}

void to_json(json& j, const TrialGroup& g) {
    j = json{{"label", g.label},
             {"base_label", g.base_label},
             {"sweep_point", g.sweep_point},
             {"runs", g.runs},
             {"aggregate_Bps", g.aggregate_Bps},
             {"p50_Bps", g.p50_Bps},
             {"median_Bps", g.median_Bps},
             {"mean_Bps", g.mean_Bps},
             {"mean_ci_low", optional_json(g.ci_low)},
             {"mean_ci_high", optional_json(g.ci_high)},
             {"cv", g.cv},
             {"pooled_p50_Bps", g.pooled_p50_Bps},
             {"per_copy_cv", g.per_copy_cv},
             {"fairness_jain", g.fairness_jain},
             {"host_concurrency", g.host_concurrency},
             {"device_concurrency", optional_json(g.device_concurrency)},
             {"is_baseline", g.is_baseline},
             {"vs_baseline", optional_json(g.vs_baseline)}};
}

}  // namespace xfer
