// xferlab.gap_mark(): the clock read into a thread-local, which the thread's next w.copy() or
// w.timed() hands to its worker (PayloadWorker). Nothing is looked up: the mark belongs to the
// calling thread, whose worker checks that it falls after its previous return.
#include "embed/gap_mark.hpp"

#include "util/clock.hpp"

namespace xfer {
namespace {

thread_local int64_t t_mark_ns = -1;

PyObject* gap_mark(PyObject*, PyObject*) {
    t_mark_ns = now_ns();
    Py_RETURN_NONE;
}

PyMethodDef gap_mark_def = {
    "gap_mark", gap_mark, METH_NOARGS,
    "gap_mark()\n--\n\nMarks the payload's first bytecode after a call: with [threads] "
    "gap_stages the worker's next record keeps it as gap.python_ns. Reads the host clock and "
    "nothing else."};

}  // namespace

void add_gap_mark(pybind11::module_& m) {
    PyObject* f = PyCFunction_NewEx(&gap_mark_def, nullptr, m.attr("__name__").ptr());
    if (f == nullptr) throw pybind11::error_already_set();
    m.attr("gap_mark") = pybind11::reinterpret_steal<pybind11::object>(f);
}

int64_t take_gap_mark() noexcept {
    const int64_t t = t_mark_ns;
    t_mark_ns = -1;
    return t;
}

}  // namespace xfer
