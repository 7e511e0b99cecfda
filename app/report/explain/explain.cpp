#include "report/explain/explain.hpp"

#include <string_view>

#include "report/explain/explanation_rules.hpp"

namespace xfer {

namespace {

// Applies `rule` and names it in each finding it adds.
void apply(const ExplanationRule& rule, const RuleInput& in, std::vector<Finding>& out) {
    const size_t before = out.size();
    rule.apply(in, out);
    for (size_t i = before; i < out.size(); ++i) out[i].rule = rule.text.id;
}

}  // namespace

std::vector<Finding> explain_run(const Results& results, const Analysis& analysis, size_t run) {
    std::vector<Finding> out;
    const RuleInput in{results, analysis, run};
    // A run with no measured copy has that to say and nothing else.
    const bool none = analysis.runs[run].copies == 0;
    for (const ExplanationRule& rule : explanation_rules()) {
        if (!rule.per_run || none != (std::string_view(rule.text.id) == "no-copies")) continue;
        apply(rule, in, out);
    }
    return out;
}

std::vector<Finding> summarize(const Results& results, const Analysis& analysis) {
    std::vector<Finding> out;
    const RuleInput in{results, analysis, 0};
    for (const ExplanationRule& rule : explanation_rules())
        if (!rule.per_run) apply(rule, in, out);
    return out;
}

}  // namespace xfer
