#include "report/render/watch_section.hpp"

#include <fmt/format.h>

#include "report/render/host_nodes_text.hpp"
#include "report/render/table_run_section.hpp"  // kTableWidth
#include "util/format.hpp"
#include "util/text_table.hpp"

namespace xfer {
namespace {

std::string share(int64_t part, int64_t whole) {
    return whole > 0 ? fmtx::percent(double(part) / double(whole)) : "-";
}

std::string groups_table(const WatchedStats& s) {
    TextTable t;
    t.add_column("kind", TextTable::Align::left, true);
    t.add_column("size", TextTable::Align::left);
    t.add_column("copies", TextTable::Align::right);
    t.add_column("bytes", TextTable::Align::right);
    t.add_column("in calls", TextTable::Align::right);
    t.add_column("on device", TextTable::Align::right);
    t.add_column("GB/s p50", TextTable::Align::right);
    for (const WatchedGroup& g : s.groups)
        t.add_row({g.kind, g.size_class, std::to_string(g.copies), fmtx::size(g.bytes),
                   fmtx::duration(double(g.call_ns)), fmtx::duration(double(g.device_ns)),
                   g.p50_device_Bps > 0 ? fmtx::gbps(g.p50_device_Bps) : "-"});
    return t.render(kTableWidth, 4);
}

std::string threads_table(const WatchedStats& s, const RunAnalysis& a) {
    TextTable t;
    t.add_column("worker", TextTable::Align::right);
    t.add_column("thread", TextTable::Align::left, true);
    t.add_column("pid", TextTable::Align::right);
    t.add_column("tid", TextTable::Align::right);
    t.add_column("copies", TextTable::Align::right);
    t.add_column("in calls", TextTable::Align::right);
    t.add_column("pageable", TextTable::Align::right);
    t.add_column("waited", TextTable::Align::right);
    t.add_column("another's on", TextTable::Align::right);
    t.add_column("gap p50", TextTable::Align::right);
    for (const WatchedThread& w : s.threads) {
        std::string gap = "-";
        for (const WorkerStats& ws : a.workers)
            if (ws.worker == w.worker && ws.gap_ns) gap = fmtx::duration(ws.gap_ns->p50);
        t.add_row({std::to_string(w.worker), w.name.empty() ? "-" : w.name, std::to_string(w.pid),
                   std::to_string(w.tid), std::to_string(w.copies),
                   fmtx::duration(double(w.call_ns)), share(w.pageable_ns, w.call_ns),
                   fmtx::duration(double(w.wait_ns)), share(w.wait_busy_ns, w.wait_ns), gap});
    }
    return t.render(kTableWidth, 4);
}

std::string references_lines(const WatchedStats& s) {
    std::string out;
    bool calibrated = false;
    for (const WatchedReference& r : s.references) {
        calibrated |= r.calibrate;
        const std::string what =
            r.calibrate ? fmt::format("xferlab.copy of {} from pageable memory with {} thread{}",
                                      fmtx::size(r.bytes), r.threads, r.threads == 1 ? "" : "s")
                        : fmt::format("a page-locked copy of {}", fmtx::size(r.bytes));
        std::string program = "the program made no device-timed copy there";
        if (r.program_copies > 0)
            program = fmt::format(
                "the program's {} copies there: {} per copy (p50, device-timed), "
                "{} over the device's busy window",
                r.program_copies, fmtx::gbps_unit(r.program_p50_Bps),
                fmtx::gbps_unit(r.program_window_Bps));
        out += wrap(fmt::format("device {} {}: {} ran at {} (run {}); {}", r.device, r.direction,
                                what, fmtx::gbps_unit(r.aggregate_Bps), r.run, program),
                    kTableWidth, "  ", "    ");
    }
    if (!s.references.empty())
        out += wrap(
            "(timed after the program ended, one trial each: how far apart they are is "
            "not tested)",
            kTableWidth, "  ", "    ");
    if (!calibrated)
        out += wrap(
            "xferlab.copy was not measured for these sizes here (xferlab watch "
            "--calibrate measures it)",
            kTableWidth, "  ", "    ");
    return out;
}

std::string one_section(const RunResult& run, const RunAnalysis& a) {
    const WatchedStats& s = *a.watched;
    std::string out = fmt::format("\nWatched program (run {})\n", run.position.index);
    if (s.groups.empty()) return out + "  no copy was recorded\n";
    out += "  copies by kind and size (GB/s: per copy, device-timed)\n" + groups_table(s);
    out += wrap(fmt::format("pageable copies: {} of the {} the copy calls took ({})",
                            fmtx::duration(double(s.pageable_ns)),
                            fmtx::duration(double(s.call_ns)), share(s.pageable_ns, s.call_ns)),
                kTableWidth, "  ", "    ");
    out +=
        wrap(fmt::format("waiting: the calls waited {} in all before the device started their "
                         "copies, {} of it ({}) while another transfer was on the device",
                         fmtx::duration(double(s.wait_ns)), fmtx::duration(double(s.wait_busy_ns)),
                         share(s.wait_busy_ns, s.wait_ns)),
             kTableWidth, "  ", "    ");
    out += wrap(
               "threads (waited: call start to device start, summed; another's on: the share of "
               "that wait while another transfer was on the device; gap: a copy's return to the "
               "thread's next call)",
               kTableWidth, "  ", "    ") +
           threads_table(s, a);
    out += host_nodes_text(a.host_nodes, "pageable copies", "  ");
    out += references_lines(s);
    return out;
}

}  // namespace

std::string watched_sections(const Results& results, const Analysis& analysis) {
    std::string out;
    for (size_t i = 0; i < results.runs.size() && i < analysis.runs.size(); ++i)
        if (analysis.runs[i].watched) out += one_section(results.runs[i], analysis.runs[i]);
    return out;
}

}  // namespace xfer
