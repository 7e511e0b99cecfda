#pragma once
// `with w.timed(nbytes, label=None):` — a payload times a copy it makes through its own
// framework (CuPy, PyTorch, ...) as one record of its worker, next to xferlab's routine.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "embed/run_state.hpp"

namespace xfer {

class PayloadTimedBlock {
  public:
    // `entered_ns`: when w.timed() was called, for [threads] gap_stages (-1: not stamped).
    PayloadTimedBlock(std::shared_ptr<RunState> state, int index, uint64_t bytes,
                      std::string label, int64_t entered_ns = -1);
    // Checks that the calling thread is the worker's and no block is open, then opens the
    // record (host clock last). Returns itself for `as`.
    PayloadTimedBlock& enter();
    // Closes the record (host clock first); an exception marks it failed and propagates.
    bool exit(const pybind11::object& exc_type, const pybind11::object&, const pybind11::object&);

  private:
    std::shared_ptr<RunState> state_;
    int index_;
    uint64_t bytes_;
    std::string label_;
    int64_t entered_ns_;
    bool open_ = false;
};

}  // namespace xfer
