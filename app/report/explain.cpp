#include "report/explain.hpp"

#include <string_view>

#include "report/explanation_rules.hpp"

namespace xfer {

std::vector<std::string> explain_run(const Results& results, const Analysis& analysis, size_t run,
                                     std::vector<std::string>* rules) {
    std::vector<std::string> out;
    const RuleInput in{results, analysis, run};
    // A run with no measured copy has that to say and nothing else.
    const bool none = analysis.runs[run].copies == 0;
    for (const ExplanationRule& rule : explanation_rules()) {
        if (!rule.per_run || none != (std::string_view(rule.text.id) == "no-copies")) continue;
        rule.apply(in, out);
        if (rules) rules->resize(out.size(), rule.text.id);
    }
    return out;
}

std::vector<std::string> summarize(const Results& results, const Analysis& analysis) {
    std::vector<std::string> out;
    const RuleInput in{results, analysis, 0};
    for (const ExplanationRule& rule : explanation_rules())
        if (!rule.per_run) rule.apply(in, out);
    return out;
}

}  // namespace xfer
