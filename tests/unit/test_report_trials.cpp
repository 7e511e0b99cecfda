// Statistics across trials against scipy 1.10's values (computed once, written here), and the
// verdicts they lead to.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/reporter.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "report/analysis/trial_stats.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/values.hpp"
#include "test_report_fixtures.hpp"
#include "util/format.hpp"

using namespace xfer;
using namespace xfer::testing;
using xfer::test::near;

namespace {

const std::vector<double> kA{10.2, 9.8, 10.5, 10.1, 9.9};
const std::vector<double> kB{12.1, 11.8, 12.6, 12.0, 12.3};

// One trial of run `label`: one worker, four copies of 1 GB taking `seconds` each (with a
// +-2 % wobble, so that the run has a spread of its own).
RunResult trial(int index, const std::string& label, int t, double seconds) {
    RunResult r = run(index, "host", 1);
    r.position.label = label;
    r.position.base_label = label;
    r.position.trial = t;
    const auto ns = int64_t(seconds * double(kS));
    back_to_back(r, 0, 0, {ns, ns * 102 / 100, ns * 98 / 100, ns});
    return r;
}

// `trials` interleaved trials of a baseline and of a run 20 % slower, with trial-to-trial noise
// of a few percent.
Results planted(int trials) {
    const double noise[] = {1.00, 1.04, 0.97, 1.02, 0.96};
    Results res;
    for (int t = 1; t <= trials; ++t) {
        const double n = noise[(t - 1) % 5];
        res.runs.push_back(trial(int(res.runs.size()), "fast", t, 1.0 * n));
        res.runs.push_back(trial(int(res.runs.size()), "slow", t, 1.25 * noise[(t + 1) % 5]));
    }
    return res;
}

}  // namespace

TEST_CASE("Mann-Whitney U: exact p without ties (scipy method='exact')", "[report][trials]") {
    const auto r = stats::mann_whitney(kA, kB);
    CHECK(r.exact);
    CHECK(r.u == 0);
    CHECK(near(r.p, 0.007936507936507936));
    const auto s = stats::mann_whitney({1, 2, 3, 4, 5, 6}, {2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5});
    CHECK(s.u == 10);
    CHECK(near(s.p, 0.13752913752913754));
}

TEST_CASE("Mann-Whitney U: ties use the normal approximation (scipy 'asymptotic')",
          "[report][trials]") {
    const auto r = stats::mann_whitney({1, 2, 2, 3, 4}, {2, 3, 5, 5, 6});
    CHECK_FALSE(r.exact);
    CHECK(r.u == 4.5);
    CHECK(near(r.p, 0.11049202405566802, 1e-9));
    CHECK(stats::mann_whitney({}, kB).p == 1);
}

TEST_CASE("Student t quantiles and the interval of a mean (scipy.stats.t)", "[report][trials]") {
    CHECK(near(stats::t_quantile(0.975, 4), 2.7764451051977987, 1e-9));
    CHECK(near(stats::t_quantile(0.975, 1), 12.706204736432095, 1e-9));
    CHECK(near(stats::t_quantile(0.95, 10), 1.8124611228107335, 1e-9));
    const auto ci = stats::mean_interval(kA, 0.95);
    REQUIRE(ci);
    CHECK(near(ci->low, 9.759956309670871, 1e-9));
    CHECK(near(ci->high, 10.440043690329128, 1e-9));
    CHECK_FALSE(stats::mean_interval({1.0}, 0.95));
}

TEST_CASE("the shift interval inverts the exact test", "[report][trials]") {
    // 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3 (the 3rd and 23rd of
    // the 25 sorted differences).
    const auto ci = stats::shift_interval(kA, kB, 0.95);
    REQUIRE(ci);
    CHECK(near(ci->low, -2.5));
    CHECK(near(ci->high, -1.6));
    // 6 vs 7: k = 7 (P(U <= 6) = 0.0193, P(U <= 7) = 0.0256), differences 7th and 36th of 42.
    const auto wide =
        stats::shift_interval({1, 2, 3, 4, 5, 6}, {2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}, 0.95);
    REQUIRE(wide);
    CHECK(near(wide->low, -4.5));
    CHECK(near(wide->high, 0.5));
    // 3 vs 3: even the extremes hold only 90 %.
    CHECK_FALSE(stats::shift_interval({1, 2, 3}, {4, 5, 6}, 0.95));
}

TEST_CASE("the smallest p a Mann-Whitney test can give: 2 / C(m+n, m)", "[report][trials]") {
    CHECK(near(stats::smallest_mann_whitney_p(3, 3), 0.1));        // 2/20
    CHECK(near(stats::smallest_mann_whitney_p(3, 4), 2.0 / 35));   // 0.057: not below 0.05
    CHECK(near(stats::smallest_mann_whitney_p(4, 4), 2.0 / 70));   // 0.029: testable
    CHECK(near(stats::smallest_mann_whitney_p(5, 5), 2.0 / 252));  // the exact test's 0.00794
    CHECK(stats::smallest_mann_whitney_p(1, 1) == 1);
    CHECK(stats::smallest_mann_whitney_p(0, 5) == 1);
    // It is what the exact test gives for fully separated samples.
    CHECK(near(stats::mann_whitney({1, 2, 3}, {4, 5, 6}).p, stats::smallest_mann_whitney_p(3, 3)));
}

TEST_CASE("a planted 20% difference: slower at 5 trials, not tested at 1", "[report][trials]") {
    const Analysis five = analyze(planted(5));
    REQUIRE(five.groups.size() == 2);
    CHECK(five.groups[0].is_baseline);
    CHECK(five.groups[0].runs == std::vector<int>{0, 2, 4, 6, 8});
    REQUIRE(five.groups[1].vs_baseline);
    const TrialComparison& c = *five.groups[1].vs_baseline;
    CHECK(c.finding == TrialComparison::Finding::slower);
    CHECK(std::abs(c.ratio - 0.8) < 0.03);
    CHECK(near(c.p, 0.007936507936507936));
    REQUIRE(c.ci_low);
    CHECK(*c.ci_high < 1);
    INFO(c.verdict);
    CHECK(c.verdict ==
          "0.80x, slower (95% CI [0.75x, 0.85x], Mann-Whitney p=0.00794, 5 vs 5 trials)");

    const Analysis one = analyze(planted(1));
    REQUIRE(one.groups[1].vs_baseline);
    CHECK(one.groups[1].vs_baseline->finding == TrialComparison::Finding::not_tested);
    CHECK(one.groups[1].vs_baseline->verdict ==
          "0.82x, not tested (1 trial: between-run drift unknown; run with --trials 5)");
    bool said = false;
    for (const auto& s : texts(one.summary))
        said |= s.find("one trial per run: drift between runs is unknown") == 0;
    CHECK(said);
}

TEST_CASE("verdicts: 3 vs 3 trials are not testable, a 0.1 % difference found is negligible",
          "[report][trials][explain]") {
    // 3 trials a side: even a 20 % difference with every trial apart gives p = 0.1 at best.
    const Analysis three = analyze(planted(3));
    REQUIRE(three.groups[1].vs_baseline);
    const TrialComparison& t = *three.groups[1].vs_baseline;
    CHECK(t.finding == TrialComparison::Finding::not_testable);
    CHECK(t.verdict ==
          "0.82x, not testable with 3 vs 3 trials (the smallest p they can give is 0.1; run with "
          "--trials 5)");
    // With trials the verdicts table gives it; the summary does not repeat it.
    bool listed = false;
    for (const auto& line : texts(three.summary))
        listed |= line.find("not testable with these") == 0;
    CHECK_FALSE(listed);
    // 5 vs 5, every trial of one 0.1 % slower than every trial of the other: found, negligible.
    Results tiny;
    for (int k = 1; k <= 5; ++k) {
        const double drift = 1 + 0.0002 * k;  // trials differ by 0.02 %, the runs by 0.1 %
        tiny.runs.push_back(trial(int(tiny.runs.size()), "a", k, 1.0 * drift));
        tiny.runs.push_back(trial(int(tiny.runs.size()), "b", k, 1.001 * 1.0012 * drift));
    }
    const Analysis an = analyze(tiny);
    REQUIRE(an.groups[1].vs_baseline);
    const TrialComparison& n = *an.groups[1].vs_baseline;
    CHECK(n.p < 0.05);
    CHECK(n.finding == TrialComparison::Finding::negligible);
    CHECK(n.verdict.rfind("1.00x, negligible: under 1 % (95% CI [", 0) == 0);
    for (const auto& line : texts(an.summary)) CHECK(line.find("slower than") == std::string::npos);
}

TEST_CASE("each sweep point has its own baseline, scenario.baseline picks it by label",
          "[report][trials]") {
    Results res;
    for (const char* threads : {"1", "4"}) {
        for (const char* launcher : {"host", "python"}) {
            RunResult r =
                trial(int(res.runs.size()), std::string(launcher) + " t=" + threads, 1, 1.0);
            r.position.base_label = launcher;
            r.position.sweep_point = {{"threads.count", threads}};
            res.runs.push_back(r);
        }
    }
    const Analysis first = analyze(res);
    REQUIRE(first.groups[3].vs_baseline);
    CHECK(first.groups[3].vs_baseline->baseline_group == 2);  // python t=4 vs host t=4
    CHECK(first.runs[3].vs_baseline->baseline_run == 2);

    res.scenario = {{"scenario", {{"baseline", "python"}}}};
    const Analysis named = analyze(res);
    CHECK(named.groups[1].is_baseline);
    CHECK(named.groups[3].is_baseline);
    REQUIRE(named.groups[2].vs_baseline);
    CHECK(named.groups[2].vs_baseline->baseline_group == 3);
}

TEST_CASE("two trials far apart: the mean's 95% interval stops at zero and prints as [lo, hi]",
          "[report][trials]") {
    // 1 GB/s and about 33 GB/s: the t interval of two trials (t = 12.7) reaches far below zero,
    // which no aggregate bandwidth can be. The table printed it "-94.460-134.9".
    Results res;
    res.runs.push_back(trial(0, "wide", 1, 1.0));
    res.runs.push_back(trial(1, "wide", 2, 0.03));
    const Analysis a = analyze(res);
    REQUIRE(a.groups.size() == 1);
    const TrialGroup& g = a.groups[0];
    REQUIRE(g.ci_low);
    CHECK(*g.ci_low == 0);
    CHECK(*g.ci_high > g.mean_Bps);
    std::ostringstream table;
    // The full table has the mean's interval (the concise one the verdict's).
    make_reporter("table", ReportDetail::full)->write(res, a, table);
    INFO(table.str());
    CHECK(xfer::test::contains(table.str(), "[0.000, " + fmtx::gbps(*g.ci_high) + "]"));
    CHECK_FALSE(xfer::test::contains(table.str(), "-0."));
}
