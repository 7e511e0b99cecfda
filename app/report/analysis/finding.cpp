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

Finding& Finding::runs(const std::string& name, std::vector<int> runs, std::string text) {
    this->runs(name, std::move(runs));
    fields.back().text = std::move(text);
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

std::string run_numbers(const std::vector<int>& runs) {
    return fmt::format("{} {}", runs.size() == 1 ? "run" : "runs", fmt::join(runs, ", "));
}

std::vector<std::string> texts(const std::vector<Finding>& findings) {
    std::vector<std::string> out;
    out.reserve(findings.size());
    for (const Finding& f : findings) out.push_back(f.text());
    return out;
}

}  // namespace xfer
