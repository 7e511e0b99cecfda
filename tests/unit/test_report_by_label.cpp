// The concise report reads by label: a run of the plan's trials listed together, figures as the
// range of theirs, and how many trials say it (report/render/findings_by_label); the machine in
// one line; the standard of evidence of the sentences (the sign test, the interval of a fall,
// a cause from few or disturbed trials, per-device figures).
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/analysis/trial_stats.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/findings_by_label.hpp"
#include "report/render/reporter.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;

namespace {

// A one-worker run of `label`, trial `trial`: nine copies of 1 s and one of `slow` ns.
RunResult slow_once(int index, const std::string& label, int trial, int64_t slow) {
    RunResult r = run(index, "host", 1);
    r.position.label = label;
    r.position.trial = trial;
    std::vector<int64_t> durations(9, kS);
    durations.push_back(slow);
    back_to_back(r, 0, 0, durations);
    return r;
}

Results results_of(std::vector<RunResult> runs) {
    Results res;
    res.runs = std::move(runs);
    return res;
}

// Whether `own` is `listed` with each "lo-hi" range of `listed` narrowed to one number of `own`
// that lies in it (what shared/tools/concise-check accepts).
bool own_words(const std::string& listed, const std::string& own) {
    static const std::regex number(R"((\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?)");
    std::string pattern;
    std::vector<std::pair<double, double>> ranges;
    size_t at = 0;
    for (auto it = std::sregex_iterator(listed.begin(), listed.end(), number);
         it != std::sregex_iterator(); ++it) {
        std::string before = listed.substr(at, size_t(it->position()) - at);
        pattern += std::regex_replace(before, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
        pattern += R"((\d+(?:\.\d+)?))";
        const double lo = std::stod((*it)[1]);
        ranges.push_back({lo, (*it)[2].matched ? std::stod((*it)[2]) : lo});
        at = size_t(it->position() + it->length());
    }
    pattern += std::regex_replace(listed.substr(at), std::regex(R"([.^$|()\[\]{}*+?\\])"),
                                  R"(\$&)");
    std::smatch m;
    if (!std::regex_match(own, m, std::regex(pattern))) return false;
    for (size_t k = 0; k < ranges.size(); ++k) {
        const double v = std::stod(m[k + 1]);
        if (v < ranges[k].first || v > ranges[k].second) return false;
    }
    return true;
}

std::string make_full(const Results& res) {
    std::ostringstream out;
    make_reporter("table", ReportDetail::full)->write(res, analyze(res), out);
    return out.str();
}

}  // namespace

TEST_CASE("a label's trials are listed together, each figure as the range of theirs",
          "[report][concise]") {
    // Label a: three trials whose slowest call took 6, 8 and 7 s; label b: two of three.
    const Results res = results_of({slow_once(0, "a", 1, 6 * kS), slow_once(1, "b", 1, 9 * kS),
                                    slow_once(2, "a", 2, 8 * kS), slow_once(3, "b", 2, 2 * kS),
                                    slow_once(4, "a", 3, 7 * kS), slow_once(5, "b", 3, 9 * kS)});
    const Analysis an = analyze(res);
    const auto listed = findings_by_label(res, an, "slowest-call");
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].runs == std::vector<int>{0, 2, 4});
    CHECK(listing_head(listed[0], res) == "runs 0, 2, 4 (as run 'a' in every trial)");
    CHECK(xfer::test::contains(listed[0].text, "the slowest call took 6-8 s (6-8x the median 1 s)"));
    // b's second trial had no slow call: the listing says in how many trials.
    CHECK(listed[1].runs == std::vector<int>{1, 5});
    CHECK(listing_head(listed[1], res) == "runs 1, 5 (as run 'b' in 2 of 3 trials)");
    CHECK(xfer::test::contains(listed[1].text, "the slowest call took 9 s (9x the median 1 s)"));
    // Each listed run's own sentence is the listed one with the ranges narrowed to its figures.
    for (const ListedFinding& l : listed)
        for (int run : l.runs)
            for (const Finding& f : an.runs[size_t(run)].findings)
                if (f.rule == "slowest-call") CHECK(own_words(l.text, f.text()));
}

TEST_CASE("labels that say the same words are listed together, and units never mix in a range",
          "[report][concise]") {
    // Both labels: the same figures in every trial: one line for every run.
    const Results same = results_of({slow_once(0, "a", 1, 6 * kS), slow_once(1, "b", 1, 6 * kS),
                                     slow_once(2, "a", 2, 6 * kS), slow_once(3, "b", 2, 6 * kS)});
    const auto all = findings_by_label(same, analyze(same), "slowest-call");
    REQUIRE(all.size() == 1);
    CHECK(listing_head(all[0], same) == "every run (every trial)");
    // 6 s and 950 ms print in different units: two listings, never "950-6 s" (the second
    // trial's median is 100 ms, so its 950 ms call is its slowest at 9.5x).
    RunResult fast = run(1, "host", 1);
    fast.position.label = "a";
    fast.position.trial = 2;
    std::vector<int64_t> d(9, 100 * kMs);
    d.push_back(950 * kMs);
    back_to_back(fast, 0, 0, d);
    const Results mixed = results_of({slow_once(0, "a", 1, 6 * kS), fast});
    const auto apart = findings_by_label(mixed, analyze(mixed), "slowest-call");
    REQUIRE(apart.size() == 2);
    CHECK(listing_head(apart[0], mixed) == "run 0 (as run 'a' in 1 of 2 trials)");
    CHECK(xfer::test::contains(apart[1].text, "950 ms"));
}

TEST_CASE("the concise report: one line per label in the verdicts, the machine in one line",
          "[report][concise]") {
    std::vector<RunResult> runs;
    for (int t = 1; t <= 3; ++t)
        for (const char* label : {"a", "b"}) {
            RunResult r = slow_once(int(runs.size()), label, t, 6 * kS);
            r.settings.launcher = label;
            if (t == 2 && std::string(label) == "b")
                r.host_activity = HostActivity{"copies", 10 * kS, 16, 6.4, 1.0, 1.7, 0};
            runs.push_back(std::move(r));
        }
    const Results res = results_of(runs);
    std::ostringstream out;
    make_reporter("table", ReportDetail::concise)->write(res, analyze(res), out);
    const std::string text = out.str();
    INFO(text);
    CHECK(xfer::test::contains(text, "Verdicts across trials (3 trials each;"));
    CHECK_FALSE(xfer::test::contains(text, "(runs 0, 2, 4)"));  // no run list in the label column
    CHECK(xfer::test::contains(text, "Verdicts across trials"));
    CHECK_FALSE(xfer::test::contains(text, "slowest call"));  // a run's detail: --full's
    CHECK(xfer::test::contains(make_full(res), "the slowest call took 6 s"));
    CHECK(xfer::test::contains(xfer::test::squeeze(text),
                               "Machine: shared during 1 of 6 runs: other processes kept 1.7 of "
                               "16 CPUs busy"));
    CHECK_FALSE(xfer::test::contains(text, "why: shared machine"));
    CHECK(xfer::test::contains(text, "  - baseline: 'a'\n"));
}

TEST_CASE("the sign test of paired trials: as scipy's binomtest gives it", "[report][trials]") {
    CHECK(stats::sign_test_p(5, 0) == Approx(0.0625));
    CHECK(stats::sign_test_p(0, 6) == Approx(0.03125));
    CHECK(stats::sign_test_p(9, 1) == Approx(0.021484375));
    CHECK(stats::sign_test_p(4, 1) == Approx(0.375));
    CHECK(stats::sign_test_p(3, 3) == 1);
    CHECK(stats::sign_test_p(0, 0) == 1);
}
