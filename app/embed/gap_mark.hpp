#pragma once
// xferlab.gap_mark(): a payload marks its first bytecode after a call ([threads] gap_stages).
// A plain C function of no arguments (METH_NOARGS: no argument parsing, no pybind11 dispatch)
// that reads the clock into a thread-local: the cheapest call the payload can make, so that
// marking moves the gap it measures as little as possible (its cost: docs/performance.md).
#include <pybind11/pybind11.h>

#include <cstdint>

namespace xfer {

void add_gap_mark(pybind11::module_& m);
// The calling thread's last mark (host clock ns), -1 when none since the last take.
int64_t take_gap_mark() noexcept;

}  // namespace xfer
