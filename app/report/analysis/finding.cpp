#include "report/analysis/finding.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace xfer {

Finding& Finding::say(const std::string& text) {
    shape += text;
    return *this;
}

Finding& Finding::claim(const std::string& name, const std::string& text) {
    fields.push_back({name, FindingField::Kind::claim, text, 0, {}});
    return *this;
}

Finding& Finding::figure(const std::string& name, double value, const std::string& text) {
    fields.push_back({name, FindingField::Kind::figure, text, value, {}});
    return *this;
}

Finding& Finding::runs(const std::string& name, std::vector<int> runs) {
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    fields.push_back({name, FindingField::Kind::runs, run_numbers(runs), 0, std::move(runs)});
    return *this;
}

const FindingField* Finding::field(const std::string& name) const {
    for (const FindingField& f : fields)
        if (f.name == name) return &f;
    return nullptr;
}

namespace {

// The shape with every {name} replaced by `value_of(name)`; an unknown name stays as written.
std::string fill(const std::string& shape,
                 const std::function<std::string(const std::string&)>& value_of) {
    std::string out;
    size_t i = 0;
    while (i < shape.size()) {
        const size_t open = shape.find('{', i);
        const size_t close = open == std::string::npos ? open : shape.find('}', open);
        if (close == std::string::npos) {
            out += shape.substr(i);
            break;
        }
        out += shape.substr(i, open - i);
        out += value_of(shape.substr(open + 1, close - open - 1));
        i = close + 1;
    }
    return out;
}

}  // namespace

std::string Finding::text() const {
    return fill(shape, [this](const std::string& name) {
        const FindingField* f = field(name);
        return f ? f->text : "{" + name + "}";
    });
}

std::string Finding::claim_key() const {
    std::string key = rule + '\n' + shape;
    for (const FindingField& f : fields)
        if (f.kind == FindingField::Kind::claim) key += '\n' + f.name + '=' + f.text;
    return key;
}

std::string run_numbers(const std::vector<int>& runs) {
    return fmt::format("{} {}", runs.size() == 1 ? "run" : "runs", fmt::join(runs, ", "));
}

namespace {

// One field over every finding of a group: its text where they agree; a figure's range, a
// run list's union otherwise.
std::string together(const std::vector<const Finding*>& group, const std::string& name) {
    std::vector<const FindingField*> fs;
    for (const Finding* f : group)
        if (const FindingField* field = f->field(name)) fs.push_back(field);
    if (fs.empty()) return "{" + name + "}";
    const bool agree = std::all_of(fs.begin(), fs.end(),
                                   [&](const FindingField* f) { return f->text == fs[0]->text; });
    if (agree) return fs[0]->text;
    switch (fs[0]->kind) {
        case FindingField::Kind::figure: {
            const auto [lo, hi] = std::minmax_element(
                fs.begin(), fs.end(),
                [](const FindingField* a, const FindingField* b) { return a->value < b->value; });
            if ((*lo)->text == (*hi)->text) return (*lo)->text;
            return (*lo)->text + " to " + (*hi)->text;
        }
        case FindingField::Kind::runs: {
            std::vector<int> all;
            for (const FindingField* f : fs) all.insert(all.end(), f->runs.begin(), f->runs.end());
            std::sort(all.begin(), all.end());
            all.erase(std::unique(all.begin(), all.end()), all.end());
            return run_numbers(all);
        }
        case FindingField::Kind::claim: break;
    }
    return fs[0]->text;  // claims agree within a group by construction
}

}  // namespace

std::string render_together(const std::vector<const Finding*>& same_claim) {
    if (same_claim.empty()) return "";
    return fill(same_claim.front()->shape,
                [&](const std::string& name) { return together(same_claim, name); });
}

bool figures_differ(const std::vector<const Finding*>& same_claim) {
    for (const Finding* f : same_claim)
        if (f->text() != same_claim.front()->text()) return true;
    return false;
}

std::vector<std::string> texts(const std::vector<Finding>& findings) {
    std::vector<std::string> out;
    out.reserve(findings.size());
    for (const Finding& f : findings) out.push_back(f.text());
    return out;
}

}  // namespace xfer
