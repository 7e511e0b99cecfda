#pragma once
// A finding of an explanation rule as data: the rule, the claim it makes and the figures it
// cites, with the shape of its sentence. The text is rendered from them, so findings of several
// runs can be listed together exactly when they make the same claim (same rule, same shape,
// same claim fields): a run is never named under another run's claim. Their figures print as
// ranges over the runs (report/render/table_concise.cpp), so the line stays true of each run
// listed.
#include <string>
#include <vector>

namespace xfer {

struct FindingField {
    enum class Kind {
        claim,   // what the finding says (a device, the workers that kept it, a direction)
        figure,  // a number it cites: may differ between runs that make the same claim
        runs,    // run numbers it points to: listed together, the union of every run's
    };
    std::string name;
    Kind kind = Kind::claim;
    std::string text;       // as printed (claim, figure)
    double value = 0;       // figure: orders the ends of a range
    std::vector<int> runs;  // runs: ascending
};

struct Finding {
    std::string rule;   // the catalogue id (report/explain/explanation_rules.hpp)
    std::string shape;  // the sentence, with {name} where each field goes
    std::vector<FindingField> fields;

    // Builders, in the order a rule composes its sentence: `say` appends to the shape.
    Finding& say(const std::string& text);
    Finding& claim(const std::string& name, const std::string& text);
    Finding& figure(const std::string& name, double value, const std::string& text);
    Finding& runs(const std::string& name, std::vector<int> runs);

    const FindingField* field(const std::string& name) const;
    // The sentence with this finding's own fields.
    std::string text() const;
    // Rule, shape and every claim field: equal keys make the same claim.
    std::string claim_key() const;
};

// "run 3" or "runs 1, 6".
std::string run_numbers(const std::vector<int>& runs);

// The sentence of findings that make one claim (equal claim_key, at least one): each figure
// once where they agree, else "lowest to highest"; each run list the union of theirs.
std::string render_together(const std::vector<const Finding*>& same_claim);

// Whether the findings' figures differ (a grouped line then shows ranges).
bool figures_differ(const std::vector<const Finding*>& same_claim);

std::vector<std::string> texts(const std::vector<Finding>& findings);

}  // namespace xfer
