// The payload API's behaviour. The copy path is short on purpose: checks with the GIL held,
// then (gil = release) the GIL released around Worker::copy_once and nothing else; no Python
// object is touched while it is released.
#include "embed/payload_objects.hpp"

#include <stdexcept>
#include <vector>

#include "launch/copy_loop.hpp"
#include "embed/gap_mark.hpp"
#include "embed/interpreter_locals.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/py_convert.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// ctx.barrier() without an index finds its worker here.
struct ThreadBinding {
    uint64_t run_id = 0;
    int worker = -1;
};
thread_local ThreadBinding t_binding;

void bind_this_thread(uint64_t run_id, int worker) { t_binding = {run_id, worker}; }

// The kinds host_buffer allocates: host memory without the cuda backend.
bool payload_host_kind(HostMemoryKind kind) {
    return kind == HostMemoryKind::pageable || kind == HostMemoryKind::hugepage ||
           kind == HostMemoryKind::numa;
}

HostMemory parse_host_kind(const std::string& kind) {
    HostMemory m;
    if (const auto named = enum_named<HostMemoryKind>(kind); named && payload_host_kind(*named)) {
        m.kind = *named;
        return m;
    }
    if (const auto with = enum_with_argument<HostMemoryKind>(kind);
        with && with->first == HostMemoryKind::numa) {
        const std::string& node = with->second;
        try {
            size_t used = 0;
            m.numa_node = std::stoi(node, &used);
            if (used == node.size() && m.numa_node >= 0) {
                m.kind = HostMemoryKind::numa;
                return m;
            }
        } catch (const std::exception&) {
        }
    }
    std::string allowed, cuda_only;
    std::vector<std::string> others;
    for (const auto& row : enum_rows<HostMemoryKind>()) {
        if (payload_host_kind(row.value))
            allowed += (allowed.empty() ? "" : ", ") + enum_choice(row.value);
        else
            others.push_back(enum_choice(row.value));
    }
    for (size_t i = 0; i < others.size(); ++i)
        cuda_only += (i == 0 ? "" : i + 1 == others.size() ? " and " : ", ") + others[i];
    throw py::value_error("host_buffer kind '" + kind + "': allowed " + allowed + " (" + cuda_only +
                          " memory belong to the cuda backend)");
}

}  // namespace

void raise_stopped(const std::string& why) {
    PyObject* stopped = stopped_exception_type();
    PyErr_SetString(stopped ? stopped : PyExc_RuntimeError, why.c_str());
    throw py::error_already_set();
}

void observe_gil_during_copy(Worker& worker, bool interpreter_has_gil) {
    // Without a GIL (a free-threaded build) there is nothing to hold or release: gil_held stays
    // unset, which reads "no GIL".
    auto& info = worker.thread_info();
    if (!info.gil_held && interpreter_has_gil) info.gil_held = this_thread_holds_interpreter_lock();
}

namespace {

// threading.current_thread().name of the calling thread (the GIL is held).
std::string python_thread_name() {
    return py::str(py::module_::import("threading").attr("current_thread")().attr("name"));
}

}  // namespace

void require_owner_thread(RunState& state, int index, const char* call) {
    if (!state.entered(index)) return;
    const Worker& w = state.worker(index);
    const int tid = int(::gettid());
    if (w.thread_info().tid == tid) return;
    throw std::runtime_error(
        std::string(call) + ": worker " + std::to_string(w.index()) + " belongs to thread '" +
        state.owner_name(index) + "' (tid " + std::to_string(w.thread_info().tid) +
        "), the thread that entered it, but this call came from thread '" + python_thread_name() +
        "' (tid " + std::to_string(tid) +
        "): its copies would be recorded as the other thread's. Use each worker from one "
        "thread: take ctx.worker(i) in the thread that copies");
}

int worker_bound_to_this_thread(uint64_t run_id) {
    return t_binding.run_id == run_id ? t_binding.worker : -1;
}

// --- Worker ---

PayloadWorker::PayloadWorker(std::shared_ptr<RunState> state, int index)
    : state_(std::move(state)),
      index_(index),
      global_(state_->worker(index).index()),
      stages_(state_->run.settings.threads.gap_stages) {}

Worker& PayloadWorker::checked_worker(bool need_running) const {
    if (!state_->open()) raise_stopped("run '" + state_->run.position.label + "' is over");
    if (need_running && state_->stop_requested())
        raise_stopped(state_->interrupted() ? "xferlab was interrupted"
                                            : "the run's timeout passed: stop copying");
    return state_->worker(index_);
}

void PayloadWorker::ensure_entered() {
    if (state_->entered(index_)) return;
    Worker& w = state_->worker(index_);
    state_->set_entered(index_, true);
    state_->set_owner_name(index_, python_thread_name());
    try {
        // ThreadInfo capture and the backend's per-thread set-up (first touch): no Python
        // object involved, so other Python threads may run meanwhile.
        py::gil_scoped_release release;
        w.enter_thread(state_->thread_label);
    } catch (...) {
        state_->set_entered(index_, false);
        throw;
    }
    w.thread_info().python_thread = true;
}

void PayloadWorker::enter() {
    InFlight busy(*state_);
    checked_worker(true);
    require_owner_thread(*state_, index_, "w.enter()");
    bind_this_thread(state_->id, index_);
    ensure_entered();
}

void PayloadWorker::copy(int count) {
    const int64_t entered = stages_ ? now_ns() : -1;  // first: the call's entry
    if (count < 1) throw py::value_error("copy(count=n) needs n >= 1");
    InFlight busy(*state_);
    Worker* worker = &checked_worker(true);
    require_owner_thread(*state_, index_, "w.copy()");
    if (worker->in_timed_block())
        throw std::logic_error(
            "w.copy() inside a w.timed() block: the block is one record already; call w.copy() "
            "outside it");
    if (!state_->entered(index_)) {
        // The first copy on a thread that did not call w.enter(): enter now, untimed.
        bind_this_thread(state_->id, index_);
        ensure_entered();
        worker = &checked_worker(true);  // the GIL was released: the run may have ended
    }
    if (stages_) {
        worker->stamp_python(take_gap_mark());
        worker->stamp_entry(entered);
    }
    int done;
    {
        // The GIL is released around the whole loop (gaps included) or held across it: what a
        // native call in the payload's thread would do with it. (Without a GIL, release
        // detaches the thread from the interpreter, as any native call's release does.)
        CopyGuard plain;
        const BetweenSpec& between = state_->run.settings.threads.between;
        if (state_->run.settings.gil == GilPolicy::release) {
            {
                py::gil_scoped_release release;
                observe_gil_during_copy(*worker, state_->interpreter_has_gil());
                done = copy_loop(*worker, count, between, state_->stop_condition(), plain);
            }  // the thread back in the interpreter: its GIL taken again, where it has one
            if (stages_) worker->stamp_attached();
        } else {
            observe_gil_during_copy(*worker, state_->interpreter_has_gil());
            done = copy_loop(*worker, count, between, state_->stop_condition(), plain);
            if (stages_) worker->stamp_attached();  // it never left
        }
    }
    if (done < count)
        raise_stopped("stopped after " + std::to_string(done) + " of " + std::to_string(count) +
                      " copies");
}

void PayloadWorker::barrier() {
    InFlight busy(*state_);
    checked_worker(true);
    require_owner_thread(*state_, index_, "w.barrier()");
    bind_this_thread(state_->id, index_);
    ensure_entered();
    checked_worker(true);  // entering released the GIL: the run may have ended
    int64_t released;
    {
        py::gil_scoped_release release;
        released = state_->gate().arrive_and_wait(global_);
    }
    if (released < 0) raise_stopped("the start gate was aborted");
}

uint64_t PayloadWorker::bytes() const { return state_->run.settings.transfer.bytes; }

PayloadTimedBlock PayloadWorker::timed(const py::object& nbytes, const py::object& label) {
    InFlight busy(*state_);
    checked_worker(true);
    const int64_t entered = stages_ ? now_ns() : -1;
    require_owner_thread(*state_, index_, "w.timed()");
    const uint64_t n = size_argument(nbytes, "w.timed() nbytes");
    std::string text =
        label.is_none() ? std::string("w.timed") : py::str(label).cast<std::string>();
    if (text.empty()) throw py::value_error("w.timed(): the label must not be empty");
    return PayloadTimedBlock(state_, index_, n, std::move(text), entered);
}

void PayloadWorker::verified(bool ok, const std::string& how) {
    InFlight busy(*state_);
    checked_worker(false);
    if (how.empty()) throw py::value_error("w.verified(ok, how): say how the bytes were checked");
    state_->set_verified(global_, ok, how);
}

int PayloadWorker::device() const {
    InFlight busy(*state_);
    return checked_worker(false).transfer().device();
}

int PayloadWorker::copies_done() const {
    InFlight busy(*state_);
    return checked_worker(false).copies_done();
}

py::list PayloadWorker::records() const {
    InFlight busy(*state_);
    py::list out;
    for (const Record& r : checked_worker(false).records()) out.append(record_to_dict(r));
    return out;
}

py::dict PayloadWorker::thread_info() const {
    InFlight busy(*state_);
    return thread_info_to_dict(checked_worker(false).thread_info());
}

// --- Context ---

PayloadContext::PayloadContext(std::shared_ptr<RunState> state)
    : state_(std::move(state)), params_(json_to_python(state_->run.settings.params)) {}

PayloadWorker PayloadContext::worker(int index) {
    if (index < 0 || index >= state_->worker_count())
        throw py::index_error("ctx.worker(" + std::to_string(index) + "): this interpreter runs " +
                              std::to_string(state_->worker_count()) + " worker(s) (0.." +
                              std::to_string(state_->worker_count() - 1) + ")");
    InFlight busy(*state_);
    if (!state_->open()) raise_stopped("run '" + state_->run.position.label + "' is over");
    bind_this_thread(state_->id, index);
    return PayloadWorker(state_, index);
}

void PayloadContext::barrier(py::object index) {
    int i = -1;
    if (index.is_none()) {
        i = worker_bound_to_this_thread(state_->id);
        if (i < 0)
            throw py::value_error(
                "ctx.barrier(): this thread has no worker; call ctx.worker(i) on this thread "
                "first, or use ctx.barrier(i) / w.barrier()");
    } else {
        i = index.cast<int>();
    }
    worker(i).barrier();
}

std::string PayloadContext::gil() const {
    return state_->interpreter_has_gil() ? to_string(state_->run.settings.gil) : "none";
}

bool PayloadContext::stop_requested() const { return !state_->open() || state_->stop_requested(); }

void PayloadContext::note(const std::string& text) { state_->add_note(text); }

void PayloadContext::skip(const std::string& reason) {
    if (reason.empty()) throw py::value_error("ctx.skip(reason): give the reason");
    {
        InFlight busy(*state_);
        if (!state_->open()) raise_stopped("run '" + state_->run.position.label + "' is over");
        state_->skip(reason);
        // The other threads stop as they would on a timeout; the launcher reports a skip.
        state_->request_stop();
        state_->gate().abort();
    }
    raise_stopped("run skipped: " + reason);
}

// --- Host buffer ---

PayloadHostBuffer::PayloadHostBuffer(uint64_t bytes, const std::string& kind)
    : buffer_(HostBuffer::allocate(parse_host_kind(kind), bytes)), kind_(kind) {
    py::gil_scoped_release release;  // faulting in a large buffer takes a while
    buffer_.touch();
}

}  // namespace xfer
