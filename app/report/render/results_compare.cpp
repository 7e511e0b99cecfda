#include "report/render/results_compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "report/analysis/analysis_json.hpp"
#include "report/analysis/switches.hpp"
#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "util/format.hpp"
#include "util/terminal_text.hpp"

namespace xfer {

namespace {

// The `nth` (0-based) group labelled `label`: results from before labels were made distinct can
// hold one label twice, and the second of A pairs with the second of B.
const TrialGroup* find_group(const Analysis& an, const std::string& label, size_t nth) {
    for (const TrialGroup& g : an.groups)
        if (g.label == label && nth-- == 0) return &g;
    return nullptr;
}

// How many groups before `g` in `an` share its label.
size_t occurrence(const Analysis& an, const TrialGroup& g) {
    size_t n = 0;
    for (const TrialGroup& x : an.groups) {
        if (&x == &g) break;
        n += x.label == g.label;
    }
    return n;
}

// The value at dotted `path` in `key` as text: strings bare, anything else as JSON.
std::string value_at(const nlohmann::json& key, const std::string& path) {
    const nlohmann::json* at = &key;
    size_t begin = 0;
    for (;;) {
        const size_t dot = path.find('.', begin);
        const std::string part = path.substr(begin, dot == std::string::npos ? dot : dot - begin);
        if (!at->is_object() || !at->contains(part)) return "(none)";
        at = &at->at(part);
        if (dot == std::string::npos) break;
        begin = dot + 1;
    }
    return at->is_string() ? at->get<std::string>() : at->dump();
}

nlohmann::json parse_or_null(const std::string& text) {
    return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

void add_if_differs(std::vector<SettingDifference>& out, const std::string& setting,
                    const std::string& a, const std::string& b) {
    if (a != b) out.push_back({setting, a, b});
}

// Where run `x` of `ra` and run `y` of `rb` differ (ComparedPair::differences).
std::vector<SettingDifference> differences(const Results& ra, const RunResult& x, const Results& rb,
                                           const RunResult& y) {
    std::vector<SettingDifference> out;
    const HostFacts ha = ra.host.value_or(HostFacts{}), hb = rb.host.value_or(HostFacts{});
    const auto text = [](const std::optional<std::string>& f) { return f.value_or("(unknown)"); };
    add_if_differs(out, "host.hostname", text(ha.hostname), text(hb.hostname));
    add_if_differs(out, "host.cpu_model", text(ha.cpu_model), text(hb.cpu_model));
    add_if_differs(out, "threads.count", std::to_string(x.settings.threads.count),
                   std::to_string(y.settings.threads.count));
    add_if_differs(out, "backend used", x.backend_used, y.backend_used);
    if (const auto keys = scaling_key_differences(x, y)) {
        const nlohmann::json kx = parse_or_null(x.position.scaling_key),
                             ky = parse_or_null(y.position.scaling_key);
        for (const std::string& path : *keys) {
            // "transfer.bytes" is shown as its "transfer.bytes_text" ("2 GiB") says it.
            const std::string suffix = "_text";
            if (path.size() > suffix.size() &&
                path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                keys->count(path.substr(0, path.size() - suffix.size())))
                continue;
            const std::string shown = keys->count(path + suffix) ? path + suffix : path;
            out.push_back({path, value_at(kx, shown), value_at(ky, shown)});
        }
        return out;
    }
    // Results from before scaling keys: what every run records.
    add_if_differs(out, "transfer.bytes", fmtx::size(x.settings.transfer.bytes),
                   fmtx::size(y.settings.transfer.bytes));
    const TransferSpec &tx = x.settings.transfer, &ty = y.settings.transfer;
    add_if_differs(out, "transfer.direction", to_string(tx.direction), to_string(ty.direction));
    add_if_differs(out, "transfer.host_memory", to_string(tx.host_memory),
                   to_string(ty.host_memory));
    add_if_differs(out, "launcher", x.settings.launcher, y.settings.launcher);
    return out;
}

}  // namespace

std::string differences_text(const ComparedPair& p) {
    std::vector<std::string> parts;
    for (const auto& d : p.differences)
        parts.push_back(fmt::format("{} {} in A, {} in B", d.setting, d.a, d.b));
    return fmt::format("{}", fmt::join(parts, "; "));
}

ResultsComparison compare_results(const Results& a_results, const Analysis& a,
                                  const Results& b_results, const Analysis& b) {
    ResultsComparison out;
    double log_sum = 0;
    size_t ratios = 0;
    for (const TrialGroup& ga : a.groups) {
        const TrialGroup* gb = find_group(b, ga.label, occurrence(a, ga));
        if (!gb) {
            out.only_in_a.push_back(ga.label);
            continue;
        }
        ComparedPair p;
        p.label = ga.label;
        p.a_median_Bps = ga.median_Bps;
        p.b_median_Bps = gb->median_Bps;
        p.a_trials = ga.aggregate_Bps.size();
        p.b_trials = gb->aggregate_Bps.size();
        if (!ga.runs.empty() && !gb->runs.empty()) {
            p.differences = differences(a_results, a_results.runs.at(size_t(ga.runs.front())),
                                        b_results, b_results.runs.at(size_t(gb->runs.front())));
            out.differing_pairs += !p.differences.empty();
        }
        if (p.a_trials == 0 || p.b_trials == 0) {
            ++out.not_measured;
        } else {
            p.comparison = compare_groups(*gb, ga, 0);
            p.comparison->verdict += suspect_trials(b_results, *gb, a_results, ga);
            ++out.findings[p.comparison->finding];
            log_sum += std::log(p.comparison->ratio);
            ++ratios;
        }
        out.pairs.push_back(std::move(p));
    }
    for (const TrialGroup& gb : b.groups)
        if (!find_group(a, gb.label, occurrence(b, gb))) out.only_in_b.push_back(gb.label);
    out.geomean_ratio = ratios ? std::exp(log_sum / double(ratios)) : 0;
    return out;
}

std::string compare_text(const ResultsComparison& c, const std::string& a_name,
                         const std::string& b_name) {
    using Align = TextTable::Align;
    TextTable t;
    t.add_column("label", Align::left, true);
    t.add_column("A median", Align::right);
    t.add_column("B median", Align::right);
    t.add_column("B vs A", Align::left, true);
    for (const ComparedPair& p : c.pairs) {
        const auto cell = [](double Bps, size_t n) { return n ? fmtx::gbps_unit(Bps) : "-"; };
        t.add_row({p.label, cell(p.a_median_Bps, p.a_trials), cell(p.b_median_Bps, p.b_trials),
                   p.comparison ? p.comparison->verdict : "not measured on both sides"});
    }
    std::string out =
        fmt::format("A: {}\nB: {}\n\nRuns paired by label (B against A)\n", a_name, b_name);
    out += t.render(kTableWidth);
    const auto list = [&](const char* which, const std::vector<std::string>& labels) {
        if (labels.empty()) return;
        out += fmt::format("\nOnly in {} ({}):\n", which, labels.size());
        for (const auto& l : labels) out += "  " + terminal_safe(l) + "\n";
    };
    list("A", c.only_in_a);
    list("B", c.only_in_b);
    // Faster, slower and no difference always; the findings that say the test could not
    // judge, when they occur.
    std::vector<std::string> counts;
    for (const auto f : kFindings) {
        const auto it = c.findings.find(f);
        const size_t n = it == c.findings.end() ? 0 : it->second;
        using Finding = TrialComparison::Finding;
        if (n > 0 || f == Finding::faster || f == Finding::slower || f == Finding::no_difference)
            counts.push_back(fmt::format("{} {}", n, finding_name(f)));
    }
    if (c.not_measured) counts.push_back(fmt::format("{} not measured", c.not_measured));
    out += fmt::format("\nSummary: {} pairs: {} (Mann-Whitney U on trial aggregates, 95%)",
                       c.pairs.size(), fmt::join(counts, ", "));
    if (c.geomean_ratio > 0)
        out += fmt::format("; geometric mean of ratios {}", fmtx::ratio(c.geomean_ratio));
    out += "\n";
    if (c.differing_pairs > 0)
        out += fmt::format(
            "Settings differ within {} of the {} pairs (listed on stderr; --strict refuses them)\n",
            c.differing_pairs, c.pairs.size());
    return out;
}

size_t finding_count(const ResultsComparison& c, TrialComparison::Finding f) {
    const auto it = c.findings.find(f);
    return it == c.findings.end() ? 0 : it->second;
}

nlohmann::json compare_json(const ResultsComparison& c, const std::string& a_name,
                            const std::string& b_name) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const ComparedPair& p : c.pairs) {
        nlohmann::json judged;
        if (p.comparison) {
            judged = *p.comparison;
            judged.erase("baseline_group");  // A's run: the pair says which
        }
        nlohmann::json differs = nlohmann::json::array();
        for (const auto& d : p.differences)
            differs.push_back({{"setting", d.setting}, {"a", d.a}, {"b", d.b}});
        pairs.push_back({{"label", p.label},
                         {"differences", differs},
                         {"a_median_Bps", p.a_median_Bps},
                         {"b_median_Bps", p.b_median_Bps},
                         {"a_trials", p.a_trials},
                         {"b_trials", p.b_trials},
                         {"comparison", judged}});
    }
    return {{"a", a_name},
            {"b", b_name},
            {"pairs", pairs},
            {"only_in_a", c.only_in_a},
            {"only_in_b", c.only_in_b},
            {"summary",
             {{"pairs", c.pairs.size()},
              {"faster", finding_count(c, TrialComparison::Finding::faster)},
              {"slower", finding_count(c, TrialComparison::Finding::slower)},
              {"no_difference", finding_count(c, TrialComparison::Finding::no_difference)},
              {"negligible", finding_count(c, TrialComparison::Finding::negligible)},
              {"not_testable", finding_count(c, TrialComparison::Finding::not_testable)},
              {"not_tested", finding_count(c, TrialComparison::Finding::not_tested)},
              {"not_measured", c.not_measured},
              {"differing_pairs", c.differing_pairs},
              {"geomean_ratio", c.geomean_ratio}}}};
}

}  // namespace xfer
