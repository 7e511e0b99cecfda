// A payload's own copy, timed as a record of its worker. The worker's thread only: the record
// belongs to that worker, and the device tracer watches the calling thread for the block's
// device copies.
#include "embed/timed_block.hpp"

#include <unistd.h>

#include <stdexcept>

#include "embed/gap_mark.hpp"
#include "embed/payload_objects.hpp"

namespace py = pybind11;

namespace xfer {

PayloadTimedBlock::PayloadTimedBlock(std::shared_ptr<RunState> state, int index, uint64_t bytes,
                                     std::string label, int64_t entered_ns)
    : state_(std::move(state)),
      index_(index),
      bytes_(bytes),
      label_(std::move(label)),
      entered_ns_(entered_ns) {}

PayloadTimedBlock& PayloadTimedBlock::enter() {
    if (open_) throw std::logic_error("w.timed(): this block is already open");
    if (!state_->open()) raise_stopped("run '" + state_->run.position.label + "' is over");
    if (state_->stop_requested()) raise_stopped("the run is stopped: no more timed blocks");
    Worker& w = state_->worker(index_);
    // The thread that entered the worker (its ThreadInfo, the tracer's thread) and no other.
    if (!state_->entered(index_))
        throw py::value_error("w.timed(): worker " + std::to_string(w.index()) +
                              " is timed on its own thread, the one that entered it (w.enter(), "
                              "w.barrier() or its first w.copy()): it has not been entered yet");
    require_owner_thread(*state_, index_, "w.timed()");
    if (w.in_timed_block())
        throw std::logic_error("w.timed(): blocks do not nest: worker " +
                               std::to_string(w.index()) + " is already inside one");
    const uint16_t source = state_->copy_source(label_);
    if (entered_ns_ >= 0) {  // gap_stages: the call that made this block is the gap's end
        w.stamp_python(take_gap_mark());
        w.stamp_entry(entered_ns_);
        entered_ns_ = -1;  // a block entered again has no entry of its own
    }
    w.begin_timed(source, bytes_);
    open_ = true;
    return *this;
}

bool PayloadTimedBlock::exit(const py::object& exc_type, const py::object&, const py::object&) {
    if (!open_) return false;
    open_ = false;
    // A run closed meanwhile (timeout, SIGINT) has closed the open block itself (PayloadRun
    // finish: recorded as failed), and its workers may be gone.
    if (!state_->open()) return false;
    Worker& w = state_->worker(index_);
    if (w.in_timed_block()) {
        w.end_timed(!exc_type.is_none());
        // gap_stages: back to the interpreter (the GIL was held throughout the exit).
        if (w.stages()) w.stamp_attached();
    }
    return false;  // an exception in the block propagates: the payload's traceback shows it
}

}  // namespace xfer
