// A run's section of the full table: what ran, its figures, one row per worker (the seed's
// table shape: per-copy GB/s mean/min/max), the gaps between copies and who had each device
// after whom, device-side figures, the comparison with the baseline, and what the run says in
// words that no other run says alike. Legends are the table's (report/render/table_reporter.cpp),
// not repeated here. Numbers come from Analysis only; nothing is computed here.
#include "report/render/table_run_section.hpp"

#include "report/render/host_nodes_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "report/analysis/compare.hpp"
#include "util/text_table.hpp"
#include "util/format.hpp"
#include "util/terminal_text.hpp"

namespace xfer {

namespace {

using Align = TextTable::Align;

size_t widest_line(const std::string& text) {
    size_t widest = 0, start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        widest = std::max(widest, end - start);
    return std::max(widest, text.size() - start);
}

// Where every worker that copied did, when that is one place ("device 0", "the host": the
// host backend's stand-in); "" when they differ. A worker without copies was on no device.
std::string common_device(const RunAnalysis& a) {
    std::optional<int> device;
    for (const WorkerStats& w : a.workers) {
        if (w.copies == 0) continue;
        if (device && w.device != *device) return "";
        device = w.device;
    }
    if (!device) return "";
    return *device >= 0 ? fmt::format("device {}", *device) : "the host";
}

// The copies every worker made, when they all made as many; nullopt when they differ.
std::optional<size_t> copies_per_worker(const RunAnalysis& a) {
    if (a.workers.empty()) return std::nullopt;
    for (const WorkerStats& w : a.workers)
        if (w.copies != a.workers.front().copies) return std::nullopt;
    return a.workers.front().copies;
}

// A worker's gap p50, gap p90 and run length.
std::vector<std::string> gap_cells(const WorkerStats& w) {
    return {w.gap_ns ? fmtx::duration(w.gap_ns->p50) : "-",
            w.gap_ns ? fmtx::duration(w.gap_ns->p90) : "-",
            w.run_length > 0 ? fmt::format("{:.1f}", w.run_length) : "-"};
}

// One row per worker: its copies' host-timed GB/s, its own rate and share, and (`gaps`) its
// gaps between copies and run length on its device. The device and copies columns only where
// workers differ in them (else the run's line says it once).
TextTable workers_table(const RunAnalysis& a, bool gaps) {
    const bool device_timed = a.device_per_copy_Bps.has_value();
    const bool devices = common_device(a).empty();
    const bool copies = !copies_per_worker(a);
    TextTable t;
    for (const char* c : {"worker", "tid"}) t.add_column(c, Align::right);
    if (devices) t.add_column("device", Align::right);
    if (copies) t.add_column("copies", Align::right);
    for (const char* c : {"mean GB/s", "min", "max"}) t.add_column(c, Align::right);
    if (device_timed) t.add_column("dev p50", Align::right);
    for (const char* c : {"worker GB/s", "share"}) t.add_column(c, Align::right);
    if (gaps) {
        for (const char* c : {"gap p50", "gap p90", "run len"}) t.add_column(c, Align::right);
    }
    for (const WorkerStats& w : a.workers) {
        const Distribution& d = w.per_copy_Bps;
        const bool any = d.n > 0;
        std::vector<std::string> row{std::to_string(w.worker), w.tid ? std::to_string(w.tid) : "-"};
        if (devices)
            row.push_back(!w.copies ? "-" : w.device >= 0 ? std::to_string(w.device) : "host");
        if (copies) row.push_back(std::to_string(w.copies));
        for (const auto& cell : {any ? fmtx::gbps(d.mean) : "-", any ? fmtx::gbps(d.min) : "-",
                                 any ? fmtx::gbps(d.max) : "-"})
            row.push_back(cell);
        if (device_timed)
            row.push_back(w.device_per_copy_Bps ? fmtx::gbps(w.device_per_copy_Bps->p50) : "-");
        row.push_back(w.copies ? fmtx::gbps(w.Bps) : "-");
        row.push_back(fmtx::percent(w.share));
        if (gaps) {
            for (auto& cell : gap_cells(w)) row.push_back(std::move(cell));
        }
        t.add_row(std::move(row));
    }
    return t;
}

// The run's copies in one line, then its workers: with their gaps in the same rows where the
// table fits the width, else in a table of their own.
std::string copies_and_workers(const RunResult& r, const RunAnalysis& a) {
    std::string line = fmt::format("{} copies x {} (+{} warm-up)", a.copies,
                                   fmtx::size(r.settings.transfer.bytes), a.warmup_copies);
    if (const auto each = copies_per_worker(a); each && a.workers.size() > 1)
        line += fmt::format(", {} per worker,", *each);
    line += " in " + fmtx::duration(a.window_s * 1e9);
    if (const std::string where = common_device(a); !where.empty()) line += " on " + where;
    line += fmt::format("; copy time p50 {}", fmtx::duration(a.per_copy_ns.p50));
    if (a.gap_ns && a.workers.size() > 1) {  // one worker's gaps are its row's
        line += fmt::format("; gap p50 {} (p90 {})", fmtx::duration(a.gap_ns->p50),
                            fmtx::duration(a.gap_ns->p90));
    }
    line += fmt::format("; host peak {}", a.host_peak);
    std::string out = wrap(line, kTableWidth, "  ", "    ");
    const std::string both = workers_table(a, a.gap_ns.has_value()).render(kTableWidth);
    if (widest_line(both) <= kTableWidth) return out + both;
    out += workers_table(a, false).render(kTableWidth);
    TextTable t;
    for (const char* c : {"worker", "gap p50", "gap p90", "run length"})
        t.add_column(c, Align::right);
    for (const WorkerStats& w : a.workers) {
        std::vector<std::string> row{std::to_string(w.worker)};
        for (auto& cell : gap_cells(w)) row.push_back(std::move(cell));
        t.add_row(std::move(row));
    }
    return out + t.render(kTableWidth);
}

// Who had each device after whom (devices with 2+ workers: one worker hands nothing off).
std::string handoff_lines(const RunAnalysis& a) {
    std::string out;
    for (const HandoffStats& h : a.handoffs) {
        if (h.workers < 2) continue;
        out +=
            wrap(fmt::format("{}: hand-off rate {:.2f}, mean run length {:.1f} ({} clock, {} "
                             "copies + {} warm-up)",
                             h.device >= 0 ? fmt::format("device {}", h.device) : "host",
                             h.handoff_rate, h.mean_run_length, h.clock, h.copies, h.warmup_copies),
                 kTableWidth, "  ", "    ");
    }
    return out;
}

std::string device_lines(const RunAnalysis& a) {
    if (!a.device_per_copy_Bps) return "";
    std::string line = fmt::format("device-timed per-copy p50 (p10-p90): {} GB/s",
                                   per_copy_cell(*a.device_per_copy_Bps));
    if (a.pre_device_ns) {
        line +=
            fmt::format("; call start to device start p50 {} (p90 {})",
                        fmtx::duration(a.pre_device_ns->p50), fmtx::duration(a.pre_device_ns->p90));
    }
    std::string out = wrap(line, kTableWidth, "  ", "    ");
    for (const DeviceStats& d : a.devices) {
        out += wrap(fmt::format("device {}: {} worker{}, {} copies, device-side conc. {:.2f} "
                                "(peak {})",
                                d.device, d.workers, d.workers == 1 ? "" : "s", d.copies,
                                d.concurrency, d.peak),
                    kTableWidth, "  ", "    ");
    }
    return out;
}

std::vector<RunItem> items_of_kind(const std::vector<RunItem>& items, const std::set<RunItem>& skip,
                                   bool payload) {
    std::vector<RunItem> out;
    for (const auto& item : items) {
        if ((item.kind == RunItem::Kind::payload) == payload && !skip.count(item))
            out.push_back(item);
    }
    return out;
}

}  // namespace

// A Python traceback spans lines whose blanks carry meaning (the
// frames' indentation, the caret under the failing expression): a line that fits the width is
// printed as it is after the prefix; a longer one is wrapped, indented as it was. Its own line
// breaks are kept, each line under the "error:" prefix; the rest of its control characters are
// shown escaped (util/terminal_text.hpp), as wrap() shows them.
std::string error_lines(const std::string& e) {
    std::string out;
    const std::string safe = terminal_safe_lines(e);
    size_t start = 0;
    bool first = true;
    while (start <= safe.size()) {
        size_t end = safe.find('\n', start);
        if (end == std::string::npos) end = safe.size();
        const std::string line = safe.substr(start, end - start);
        const size_t text = std::min(line.find_first_not_of(' '), line.size());
        if (text < line.size() || first) {
            const std::string prefix = first ? "  error: " : "    ";
            if (prefix.size() + line.size() <= kTableWidth) {
                out += prefix + line + "\n";
            } else {
                const std::string indent = prefix + line.substr(0, text);
                out += wrap(line.substr(text), kTableWidth, indent, indent + "  ");
            }
        }
        first = false;
        start = end + 1;
    }
    return out;
}

std::string per_copy_cell(const Distribution& d) {
    if (d.n == 0) return "-";
    return fmt::format("{} ({}-{})", fmtx::gbps(d.p50), fmtx::gbps(d.p10), fmtx::gbps(d.p90));
}

std::string items_text(const std::vector<RunItem>& items, const std::string& indent,
                       const std::string& whose) {
    std::string out;
    int heading = -1;  // the baseline run of the thread attributes' heading printed last
    for (const auto& item : items) {
        switch (item.kind) {
            case RunItem::Kind::payload:
                out += wrap(item.text, kTableWidth, indent, indent + "  ");
                break;
            case RunItem::Kind::thread_difference:
                if (item.baseline != heading) {
                    out += fmt::format("{}thread attributes, run {} vs {}:\n", indent,
                                       item.baseline, whose);
                    heading = item.baseline;
                }
                out += wrap(item.text, kTableWidth, indent + "  ", indent + "    ");
                break;
            case RunItem::Kind::finding:
                out += wrap(item.text, kTableWidth, indent + "why: ", indent + "  ");
                break;
            case RunItem::Kind::note:
                out += wrap(item.text, kTableWidth, indent + "note: ", indent + "  ");
                break;
        }
    }
    return out;
}

std::string run_section(const RunResult& r, const RunAnalysis& a, const std::set<RunItem>& skip) {
    std::string out =
        "\n" +
        wrap(fmt::format("Run {}: {} ({}, {} backend, {} thread{}, {})", r.position.index,
                         r.position.label, r.settings.launcher,
                         r.backend_used.empty() ? "?" : r.backend_used, r.settings.threads.count,
                         r.settings.threads.count == 1 ? "" : "s", to_string(r.status)),
             kTableWidth, "", "  ");
    const std::vector<RunItem> items = run_items(r, a);
    out += items_text(items_of_kind(items, skip, true), "  ", "this run");
    if (a.copies > 0) {
        out += copies_and_workers(r, a) + handoff_lines(a);
    }
    out += device_lines(a);
    out += host_nodes_text(a.host_nodes, a.watched ? "pageable copies" : "copies", "  ");
    for (const std::string& line : staging_helper_lines(a.staging_helpers))
        out += wrap(line, kTableWidth, "  ", "    ");
    for (const std::string& line : timed_block_lines(a.timed_blocks))
        out += wrap(line, kTableWidth, "  ", "    ");
    for (const std::string& line : gap_stage_lines(a.gap_stages))
        out += wrap(line, kTableWidth, "  ", "    ");
    // The aggregate's verdict is the runs table's; the per-copy one is said only here.
    if (a.vs_baseline && a.vs_baseline->judged) {
        const Comparison& c = *a.vs_baseline;
        out += wrap(fmt::format("per-copy p50 vs run {}: {}", c.baseline_run,
                                ratio_verdict(c.p50_ratio, c.p50_noise, c.judged)),
                    kTableWidth, "  ", "    ");
    }
    out += items_text(items_of_kind(items, skip, false), "  ", "this run");
    for (const auto& e : r.errors) out += error_lines(e);
    return out;
}

}  // namespace xfer
