// The terminal report, 100 columns wide, at three levels of detail (report/render/reporter.hpp).
// Full: what ran, the runs side by side (how each compares to the baseline), their bandwidth
// figures, what several runs say alike (once, naming the runs), then each run's own section
// (report/render/table_run_section.cpp), and the summary across runs. Concise: what ran, one row
// per run of the plan, each finding and note once (report/render/table_concise.cpp), the errors,
// the summary. Brief: the runs, the bandwidth, the notes that change how they read, the summary.
// Numbers come from Analysis only.
#include "report/render/formats.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <set>

#include "report/render/handoff_table.hpp"
#include "report/render/settings_header.hpp"
#include "report/render/shared_items.hpp"
#include "report/render/table_concise.hpp"
#include "report/render/table_parts.hpp"
#include "report/render/table_run_section.hpp"
#include "report/render/watch_section.hpp"
#include "util/text_table.hpp"
#include "util/format.hpp"
#include "util/terminal_text.hpp"

namespace xfer {

namespace {

// Said once for every run's section, so that the sections hold only what differs.
std::string per_run_legend() {
    return "\nPer run\n" +
           wrap(
               "worker rows: per-copy GB/s (host-timed) mean, min and max; worker GB/s = the "
               "worker's bytes / its own first call..last return. gap = host clock from a "
               "copy's return to the same worker's next call; run length = a worker's copies "
               "in a row on its device.",
               kTableWidth, "  ", "  ");
}

size_t line_count(const std::string& text) {
    return size_t(std::count(text.begin(), text.end(), '\n'));
}

// What several runs say alike, printed once: the notes of every run under the header, and
// each group of items that takes fewer lines printed once with its runs named than under each
// of its runs (a one-line finding that two runs share stays under each).
struct PrintedOnce {
    std::vector<std::string> every_run_notes;
    std::vector<SharedItems::Group> groups;
    std::set<RunItem> items;  // all of the above: the runs' sections leave them out
};

PrintedOnce printed_once(const Results& results, const Analysis& analysis) {
    SharedItems shared = shared_items(results, analysis);
    PrintedOnce once;
    for (const auto& n : shared.every_run_notes) once.items.insert({RunItem::Kind::note, n});
    once.every_run_notes = std::move(shared.every_run_notes);
    for (auto& g : shared.groups) {
        const size_t apart = g.runs.size() * line_count(items_text(g.items, "  ", "this run"));
        const size_t together = 1 + line_count(items_text(g.items, "    ", "these runs"));
        if (together >= apart) continue;
        once.items.insert(g.items.begin(), g.items.end());
        once.groups.push_back(std::move(g));
    }
    return once;
}

// The groups above, each under the runs it applies to.
std::string shared_block(const PrintedOnce& once, const Results& results) {
    if (once.groups.empty()) return "";
    std::string out = "\nSaid of several runs (once here, not under each run)\n";
    for (const auto& g : once.groups) {
        const bool every = g.runs.size() == results.runs.size();
        // Many runs (a sweep with trials) make a long list: wrapped like any other line.
        out += every ? "  every run:\n"
                     : wrap(fmt::format("runs {}:", fmt::join(g.runs, ", ")), kTableWidth, "  ",
                            "    ");
        out += items_text(g.items, "    ", every ? "every run" : "these runs");
    }
    return out;
}

// The runs and their bandwidth: one row per trial, or per run of the plan when it has trials
// and the report is not the full one.
std::string runs_and_bandwidth(const Results& results, const Analysis& analysis, bool per_trial) {
    if (!has_trials(results))
        return runs_table(results, analysis) + bandwidth_table(results, analysis);
    if (per_trial)
        return runs_table(results, analysis) + trials_table(analysis, true) +
               bandwidth_table(results, analysis);
    return trials_table(analysis, false) + plan_bandwidth_table(analysis);
}

// Title, host and command; with `what_ran`, the settings header and the legend too (the
// default report's short one unless `full`).
std::string report_header(const Results& results, const Analysis& analysis, bool what_ran,
                          bool full) {
    std::string text =
        report_title(results, analysis) + host_line(results.host) + command_text(results);
    if (what_ran)
        text += settings_header_text(results, analysis, full) + "\n" +
                (full ? report_legend() : short_legend());
    return text;
}

std::string full_report(const Results& results, const Analysis& analysis) {
    const PrintedOnce once = printed_once(results, analysis);
    std::string text = report_header(results, analysis, true, true);
    for (const auto& n : once.every_run_notes)
        text += wrap(n, kTableWidth, "note (every run): ", "  ");
    text += runs_and_bandwidth(results, analysis, true);
    text += watched_sections(results, analysis);
    text += shared_block(once, results);
    if (!results.runs.empty()) text += per_run_legend();
    for (size_t i = 0; i < results.runs.size(); ++i)
        text += run_section(results.runs[i], analysis.runs[i], once.items);
    return text + summary_block(analysis, true);
}

std::string short_report(const Results& results, const Analysis& analysis, bool brief) {
    std::string text = report_header(results, analysis, !brief, false) + notes_block(results);
    text += runs_and_bandwidth(results, analysis, false);
    if (!brief) text += handoff_table(results, analysis);
    if (!brief) text += watched_sections(results, analysis);
    text += findings_block(results, analysis, brief);
    if (!brief) text += error_sections(results);
    text += summary_block(analysis, false);
    if (!brief && !results.runs.empty())
        text +=
            "\nEach run's workers, gaps, device and helper figures and thread attributes: "
            "--full\n";
    return text;
}

class TableReporter : public Reporter {
  public:
    explicit TableReporter(ReportDetail detail) : detail_(detail) {}
    std::string name() const override { return "table"; }

    void write(const Results& results, const Analysis& analysis, std::ostream& out) override {
        const std::string text =
            detail_ == ReportDetail::full
                ? full_report(results, analysis)
                : short_report(results, analysis, detail_ == ReportDetail::brief);
        // Cells and paragraphs escape the text they hold (util/text_table.hpp); this keeps any
        // control character that reached the text another way off the terminal too. Its line
        // breaks are the report's own.
        out << terminal_safe_lines(text);
    }

  private:
    ReportDetail detail_;
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail) {
    return std::make_unique<TableReporter>(detail);
}

}  // namespace xfer
