#include "report/render/machine_line.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"

namespace xfer {

namespace {

struct Range {
    double lo = 0, hi = 0;
    bool any = false;
    void add(double v) {
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    }
    // With one decimal, as the finding prints them.
    std::string text() const {
        const std::string a = fmt::format("{:.1f}", lo), b = fmt::format("{:.1f}", hi);
        return a == b ? a : a + "-" + b;
    }
};

}  // namespace

std::string machine_line(const Results& results, const Analysis& analysis) {
    size_t flagged = 0;
    Range others, steal;
    std::string cpus;
    for (const RunAnalysis& a : analysis.runs) {
        const auto f = std::find_if(a.findings.begin(), a.findings.end(),
                                    [](const Finding& x) { return x.rule == "shared-machine"; });
        if (f == a.findings.end()) continue;
        ++flagged;
        if (const FindingField* o = f->field("others")) others.add(o->value);
        if (const FindingField* s = f->field("steal")) steal.add(s->value);
        if (const FindingField* c = f->field("cpus"); c && cpus.empty()) cpus = c->text;
    }
    if (flagged == 0) return "";
    const std::string text = fmt::format(
        "shared during {} of {} runs: other processes kept {} of {} CPUs busy, the hypervisor "
        "took {}% of CPU time (steal); the copies may have waited for CPUs or memory bandwidth "
        "they shared. Which runs, and each one's figures: --full",
        flagged, results.runs.size(), others.text(), cpus, steal.text());
    return "\n" + wrap(text, kTableWidth, "Machine: ", "  ");
}

}  // namespace xfer
