#include "report/render/handoff_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/render/findings_by_label.hpp"
#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"

namespace xfer {

namespace {

// One row: a label's hand-off findings on one device, one per trial that has it.
struct Row {
    std::string label;
    std::string device;
    std::vector<const Finding*> findings;
    size_t trials = 0;  // the label's trials
};

std::string cell(const Row& row, const std::string& name) {
    std::vector<const FindingField*> fields;
    for (const Finding* f : row.findings)
        if (const FindingField* x = f->field(name)) fields.push_back(x);
    if (fields.empty()) return "-";
    return figure_range(fields);
}

std::vector<Row> rows_of(const Results& results, const Analysis& analysis) {
    std::vector<Row> rows;
    std::vector<bool> seen(results.runs.size(), false);
    std::vector<std::vector<int>> labels;
    for (const TrialGroup& g : analysis.groups) labels.push_back(g.runs);
    for (const std::vector<int>& trials : labels) {
        std::map<std::string, Row> by_device;
        for (int i : trials)
            for (const Finding& f : analysis.runs[size_t(i)].findings) {
                if (f.rule != "hand-off") continue;
                const FindingField* device = f.field("device");
                Row& row = by_device[device ? device->text : "?"];
                row.label = results.runs[size_t(i)].position.label;
                row.device = device ? device->text : "?";
                row.trials = trials.size();
                row.findings.push_back(&f);
            }
        for (auto& [device, row] : by_device) rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

std::string handoff_table(const Results& results, const Analysis& analysis) {
    const std::vector<Row> rows = rows_of(results, analysis);
    if (rows.empty()) return "";
    const bool devices = std::any_of(rows.begin(), rows.end(),
                                     [&](const Row& r) { return r.device != rows.front().device; });
    const bool trials = std::any_of(rows.begin(), rows.end(),
                                    [](const Row& r) { return r.trials > 1; });
    using Align = TextTable::Align;
    TextTable t;
    t.add_column("label", Align::left, true);
    if (devices) t.add_column("device", Align::right);
    if (trials) t.add_column("trials", Align::right);
    t.add_column("hand-off rate", Align::right);
    t.add_column("run length", Align::right);
    t.add_column("kept / handed of", Align::left);
    t.add_column("gap p50", Align::left);
    for (const Row& r : rows) {
        std::vector<std::string> cells{r.label};
        if (devices) cells.push_back(r.device);
        if (trials) cells.push_back(fmt::format("{} of {}", r.findings.size(), r.trials));
        cells.push_back(cell(r, "rate"));
        cells.push_back(cell(r, "length"));
        cells.push_back(fmt::format("{} / {} of {}", cell(r, "kept"), cell(r, "handed"),
                                    cell(r, "workers")));
        cells.push_back(cell(r, "gap"));
        t.add_row(std::move(cells));
    }
    const std::string where = devices ? "" : " on device " + rows.front().device;
    const std::string title = "Hand-off" + where + " (copies one at a time" +
                              (trials ? "; ranges over trials" : "") +
                              "; gap = a worker's return to its next call)";
    return "\n" + wrap(title, kTableWidth, "", "  ") + t.render(kTableWidth);
}

}  // namespace xfer
