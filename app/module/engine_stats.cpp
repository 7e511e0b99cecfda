#include "module/engine_stats.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "module/engine_arguments.hpp"

namespace py = pybind11;

namespace xfer::pyapi {

namespace {

// stats()["registry"]: None for an engine without a slot in the machine's engine registry; else
// where the registry is and the share of the CPUs this engine's helpers take.
py::object registry_of(const ModuleEngine& e) {
    const std::optional<EngineRegistryView> v = e.registry();
    if (!v) return py::none();
    py::dict out;
    out["path"] = v->path;
    out["registered"] = v->why.empty();
    if (!v->why.empty()) out["why"] = v->why;
    out["engines"] = v->share.engines;  // live engines sharing CPUs with it, itself included
    out["helpers"] = v->share.active;   // helpers that may take work now
    out["wanted"] = v->share.want;      // helpers it would take alone
    out["cap"] = v->share.cap;          // helpers the sharing engines take together
    return out;
}

// Where the helpers' busy time went, and a staged copy's edges, averaged.
void add_measured(const ProbeTotals& m, const StagingConfig& c, py::dict& out) {
    const HelperWork& w = m.work;
    const double busy = double(m.busy_ns) / 1e9;
    const double copying = double(w.copy_ns) / 1e9, starting = double(w.start_ns) / 1e9,
                 waiting = double(w.wait_ns) / 1e9;
    const double taking = std::max(0.0, busy - copying - starting - waiting);
    auto share = [&](double part) { return busy > 0 ? part / busy : 0.0; };
    py::dict helpers;
    helpers["busy_s"] = busy;
    helpers["copying_s"] = copying;
    helpers["starting_dmas_s"] = starting;
    helpers["waiting_for_dmas_s"] = waiting;
    helpers["taking_work_s"] = taking;
    helpers["copied_bytes"] = w.copied_bytes;
    out["helpers"] = helpers;
    // What callers did on their own threads (staging.start = "caller": their copy's first
    // buffer), apart from the helpers' figures above.
    out["callers"] = py::dict(py::arg("copied_bytes") = m.callers.copied_bytes,
                              py::arg("copying_s") = double(m.callers.copy_ns) / 1e9);
    // The fill before a copy's first DMA and the drain after its last, where the link carries
    // nothing of it, the span between; how long the link waited for the helpers; and the
    // engine's share of the caller's time.
    const double edged = double(std::max<uint64_t>(m.edged, 1));
    out["edges"] =
        py::dict(py::arg("copies") = m.edged,
                 py::arg("to_first_dma_us") = double(m.to_first_dma_ns) / edged / 1e3,
                 py::arg("after_last_dma_us") = double(m.after_last_dma_ns) / edged / 1e3,
                 py::arg("dma_span_us") = double(m.dma_span_ns) / edged / 1e3,
                 py::arg("link_starved_us") = double(m.link_starved_ns) / edged / 1e3,
                 py::arg("in_engine_s") = double(m.in_engine_ns) / 1e9,
                 py::arg("to_first_helper_us") =
                     double(m.to_first_helper_ns) / double(std::max<uint64_t>(m.woke, 1)) / 1e3,
                 py::arg("woke") = m.woke);
    // Before the first DMA of the copies alone in the engine, averaged over them.
    const double fills = double(std::max<uint64_t>(m.first_fills, 1));
    out["first_fill"] =
        py::dict(py::arg("copies") = m.first_fills,
                 py::arg("helpers_woken") = double(m.woken_before_first_dma) / fills,
                 py::arg("to_last_wake_us") = double(m.to_last_wake_ns) / fills / 1e3,
                 py::arg("to_fill_done_us") = double(m.to_first_fill_done_ns) / fills / 1e3,
                 py::arg("slowest_piece_us") = double(m.slowest_first_piece_ns) / fills / 1e3);
    // The latest copy's moments on the clock of Python's time.monotonic_ns() (CLOCK_MONOTONIC),
    // so that a caller can bracket it with its own (0: none).
    out["last_copy_ns"] =
        py::dict(py::arg("arrived") = m.last.arrived, py::arg("first_dma") = m.last.first_dma,
                 py::arg("last_done") = m.last.last_done, py::arg("finished") = m.last.finished);
    out["summary"] = fmt::format(
        "{} helper{}, {} DMAs; of their busy time copying {:.0f}% ({:.2f} GB/s per helper while "
        "copying), starting DMAs {:.1f}%, waiting for DMAs {:.0f}%, taking work {:.1f}%",
        c.threads, c.threads == 1 ? "" : "s", w.chunks, 100 * share(copying),
        copying > 0 ? double(w.copied_bytes) / copying / 1e9 : 0.0, 100 * share(starting),
        100 * share(waiting), 100 * share(taking));
}

}  // namespace

py::dict engine_stats(const ModuleEngine& e) {
    const EngineStats s = e.stats();
    const StagingConfig& c = e.config();
    py::dict out;
    out["device"] = e.device();
    out["threads"] = c.threads;
    out["active_helpers"] = e.active_helpers();
    out["buffers"] = c.buffers;
    out["chunk_to_device"] = c.chunk;
    out["chunk_from_device"] = c.chunk_from_device > 0 ? c.chunk_from_device : c.chunk;
    // Bytes per DMA of a staged copy: shared buffers' size, or else each direction's chunk.
    out["dma"] = staging_shares_buffers(c) ? py::object(py::int_(c.dma_chunk)) : py::str("chunk");
    out["direct_below"] = py::dict(py::arg("to_device") = e.direct_below(true),
                                   py::arg("from_device") = e.direct_below(false));
    // How pageable memory reaches the device, and why: staged, or one plain copy where the
    // device reads it through the host's page tables.
    out["pageable"] = py::dict(py::arg("route") = e.pageable_direct() ? "direct" : "staged",
                               py::arg("why") = e.resolved().pageable_why);
    out["options"] = engine_options_dict(e.options());
    out["note"] = e.note();
    out["copies"] = py::dict(py::arg("staged") = s.staged.requests,
                             py::arg("plain") = s.plain_copies, py::arg("host") = s.host_copies);
    out["bytes"] = py::dict(py::arg("to_device") = s.staged.to_device_bytes,
                            py::arg("from_device") = s.staged.from_device_bytes,
                            py::arg("page_locked_in_place") = s.staged.direct_bytes,
                            py::arg("plain") = s.plain_bytes,
                            py::arg("read_from_files") = s.staged.file_read_bytes);
    out["chunks"] = s.staged.chunks;  // DMAs
    out["pieces"] = s.staged.pieces;  // shared buffers: the helpers' copies into or out of them
    // The engine's lock found taken, and slept for (staging.lock): helpers and callers.
    out["lock"] = py::dict(py::arg("contended") = s.staged.lock_contended,
                           py::arg("slept") = s.staged.lock_slept);
    out["heads_ups"] = s.staged.heads_ups;  // calls that woke the helpers (wake = "call")
    out["registry"] = registry_of(e);
    out["measured"] = s.measured.has_value();
    if (s.measured) {
        add_measured(*s.measured, c, out);
        // The latest staged copy's call before the engine, on the same clock as last_copy_ns.
        out["last_call_ns"] = py::dict(
            py::arg("entered") = s.last_call.entered, py::arg("viewed") = s.last_call.viewed,
            py::arg("routed") = s.last_call.routed, py::arg("waited") = s.last_call.waited);
    } else {
        out["helpers"] = py::none();
        out["callers"] = py::none();
        out["edges"] = py::none();
        out["last_copy_ns"] = py::none();
        out["first_fill"] = py::none();
        out["last_call_ns"] = py::none();
        out["summary"] = fmt::format(
            "{} helper{}, {} DMAs (Engine(measure=True) times the helpers and a copy's edges)",
            c.threads, c.threads == 1 ? "" : "s", s.staged.chunks);
    }
    return out;
}

}  // namespace xfer::pyapi
