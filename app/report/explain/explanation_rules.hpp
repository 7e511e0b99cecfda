#pragma once
// The catalogue of explanation kinds (docs/reading-reports.md, "Explanations"). Each rule says
// what it reads (data), what makes it a cause or keeps it an observation (switch), and how
// clearly the numbers must be apart (margin), next to the code that applies it. explain.cpp
// applies them in this order; `xferlab help explanations` prints the catalogue.
#include <string>
#include <string_view>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/analysis/finding.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct RuleText {
    const char* id;
    const char* sentence;  // the shape it prints
    const char* data;      // the exact quantity it reads
    const char* cause;     // the switch that makes it a cause, or why it is an observation
    const char* margin;    // how clearly apart the numbers must be
    const char* test;      // the test a claim across runs or trials rests on ("exact" counts,
                           // "every trial", a named statistical test)
};

// What a rule sees: the whole plan and, for a rule about one run, which run.
struct RuleInput {
    const Results& results;
    const Analysis& analysis;
    size_t run = 0;
    const RunResult& r() const { return results.runs[run]; }
    const RunAnalysis& a() const { return analysis.runs[run]; }
};

struct ExplanationRule {
    RuleText text;
    bool per_run = true;  // a run's explanations; false: the summary across runs
    // Appends the rule's findings (their `rule` is filled in by the caller).
    void (*apply)(const RuleInput& in, std::vector<Finding>& out) = nullptr;
    // A finding that changes how every figure of its run is read (the machine was shared):
    // the concise and brief reports count it in their Machine line.
    bool changes_reading = false;
    // A detail of one run (its slowest call): printed in the run's section of --full, not in
    // the default report's Why block, which compares the runs of the plan.
    bool full_only = false;
    // Printed in the default report as the Hand-off table's rows (report/render/handoff_table),
    // its sentences in each run's section of --full.
    bool in_table = false;
};

// Every rule, per-run ones first, in the order their sentences are printed.
const std::vector<ExplanationRule>& explanation_rules();

// The thresholds the rules apply, each with its name and meaning: the catalogue's numbers.
// docs/reading-reports.md lists the same table (a test compares them), and the independent audit
// of the explanations (tests/python/audit_explanations.py) reads them from there.
struct RuleConstant {
    const char* name;
    double value;
    const char* meaning;
};
const std::vector<RuleConstant>& rule_constants();

// The catalogue as text (`xferlab help explanations`): id, sentence, data, switch, margin, then
// the constants.
std::string explanation_catalogue();
// The same as docs/reading-reports.md prints it: "### Per run" and "### Across runs (the
// summary)", each a Markdown table (`xferlab help explanations --markdown`).
std::string explanation_catalogue_markdown();
// Where a rule's findings are printed: "Why (default); each run's section (--full)", ...
std::string printed_where(const ExplanationRule& r);

}  // namespace xfer
