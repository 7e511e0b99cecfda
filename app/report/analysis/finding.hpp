#pragma once
// A finding of an explanation rule as data: the rule, the claim it makes and the figures it
// cites, with the shape of its sentence. The text is rendered from them; the concise report
// lists runs together only where their rendered sentences are the same (report/render/
// table_concise.cpp), so a line that names several runs is each run's own sentence.
#include <string>
#include <vector>

namespace xfer {

struct FindingField {
    enum class Kind {
        claim,   // what the finding says (a device, the workers that kept it, a direction)
        figure,  // a number it cites
        runs,    // run numbers it points to
    };
    std::string name;
    Kind kind = Kind::claim;
    std::string text;       // as printed (claim, figure)
    double value = 0;       // figure: the number (JSON and the audit read it)
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
    // Runs printed as `text` instead of their numbers: a per-run finding names the runs it
    // compares with by their label ("'python gil=release'"), so that the trials of one label
    // say the same words and the concise report can list them together.
    Finding& runs(const std::string& name, std::vector<int> runs, std::string text);

    const FindingField* field(const std::string& name) const;
    // The sentence with this finding's own fields.
    std::string text() const;
};

// "run 3" or "runs 1, 6".
std::string run_numbers(const std::vector<int>& runs);

std::vector<std::string> texts(const std::vector<Finding>& findings);

}  // namespace xfer
