#include "embed/runner_source.hpp"

namespace xfer {

const char* const kRunnerSource = R"PY(
import io
import linecache
import sys
import threading
import time
import traceback
import types


def _format(exc, skip):
    """The traceback of `exc` without its first `skip` frames (the runner's own)."""
    tb = exc.__traceback__
    for _ in range(skip):
        if tb is not None:
            tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def load(path, source, modname):
    """Compiles and executes a payload as a new module: read from disk by the caller at every
    run, never taken from an import cache. Returns (module, None) or (None, error text)."""
    linecache.checkcache(path)  # tracebacks must show the lines as they are now
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return None, "".join(traceback.format_exception_only(type(exc), exc))
    module = types.ModuleType(modname)
    module.__file__ = path
    # Registered for the run only: dataclasses, pickle and friends look modules up by name.
    sys.modules[modname] = module
    try:
        exec(code, module.__dict__)
    except BaseException as exc:
        sys.modules.pop(modname, None)
        return None, _format(exc, 1)
    return module, None


def start_main(main, ctx, done, stopped_type):
    """Runs main(ctx) on a daemon thread, so that the launcher can wait for it with a timeout;
    done(traceback_text, stopped) is called when it ends."""
    def run():
        try:
            main(ctx)
        except BaseException as exc:
            done(_format(exc, 1), isinstance(exc, stopped_type))
        else:
            done("", False)
    thread = threading.Thread(target=run, name="xferlab-main", daemon=True)
    thread.start()
    return thread


class PayloadStream(io.TextIOBase):
    """sys.stdout and sys.stderr inside xferlab: complete lines go to
    emit(thread_name, bytes, worker), which prefixes and writes them to stderr (never to
    xferlab's stdout, which carries the report). Each thread's unfinished line is kept apart,
    so threads never mix within a line; bound_worker() tells the worker of the writing thread
    (-1: none), kept with an unfinished line that another thread may end up flushing."""

    def __init__(self, name, emit, bound_worker):
        super().__init__()
        self._name = name
        self._emit = emit
        self._bound_worker = bound_worker
        # Thread object -> (its name, worker, text after its last newline). Keyed by the object:
        # an ended thread's ident is reused by the next thread.
        self._partial = {}
        self._lock = threading.Lock()

    @property
    def name(self):
        return "<xferlab payload " + self._name + ">"

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "backslashreplace"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        thread = threading.current_thread()
        with self._lock:
            _, worker, before = self._partial.pop(thread, ("", None, ""))
            text_all = before + text
            end = text_all.rfind("\n") + 1
            if end < len(text_all):
                if worker is None:
                    worker = self._bound_worker()
                self._partial[thread] = (thread.name, worker, text_all[end:])
        if end:
            self._send(thread.name, self._bound_worker(), text_all[:end])
        return len(text)

    def flush(self):
        """Ends the calling thread's unfinished line (print(..., flush=True) shows it now)."""
        with self._lock:
            item = self._partial.pop(threading.current_thread(), None)
        if item:
            self._send(item[0], item[1], item[2] + "\n")

    def flush_all(self):
        """Every thread's unfinished line, at the end of a run."""
        with self._lock:
            items = list(self._partial.values())
            self._partial.clear()
        for name, worker, text in items:
            self._send(name, worker, text + "\n")

    def _send(self, thread_name, worker, text):
        self._emit(thread_name, text.encode("utf-8", "backslashreplace"), worker)


def install_output(emit, bound_worker):
    """Payload output goes through PayloadStream from now on (the interpreter's start)."""
    global _stdout, _stderr
    _stdout = sys.stdout = PayloadStream("stdout", emit, bound_worker)
    _stderr = sys.stderr = PayloadStream("stderr", emit, bound_worker)


def flush_output():
    for stream in (_stdout, _stderr):
        if stream is not None:
            stream.flush_all()


_stdout = _stderr = None


def snapshot():
    """Process-wide state a payload may change, to be restored after its run."""
    return {
        "stdout": sys.stdout,
        "stderr": sys.stderr,
        "threads": set(threading.enumerate()),
        "stack_size": threading.stack_size(),
        "switch_interval": sys.getswitchinterval(),
        "excepthook": threading.excepthook,
    }


def install_excepthook(record, stopped_type):
    """Reports an exception that ends a thread: record(thread_name, traceback, stopped)."""
    def hook(args):
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "<unknown thread>"
        tb = args.exc_traceback
        # Start at the payload's frames, not at threading's bootstrap.
        while tb is not None and tb.tb_next is not None and \
                tb.tb_frame.f_code.co_filename == threading.__file__:
            tb = tb.tb_next
        text = "".join(traceback.format_exception(args.exc_type, args.exc_value, tb))
        record(name, text, isinstance(args.exc_value, stopped_type))
    threading.excepthook = hook


def new_threads(snap):
    """Threads started since `snap` that are still alive (threads a payload started)."""
    return [t for t in threading.enumerate()
            if t not in snap["threads"] and not isinstance(t, threading._DummyThread)
            and t.is_alive()]


def join_all(threads, timeout):
    """Joins `threads` for at most `timeout` seconds in all; returns those still alive."""
    deadline = time.monotonic() + max(0.0, timeout)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return [t for t in threads if t.is_alive()]


def restore(snap, modname):
    flush_output()
    # A payload that replaced sys.stdout (contextlib.redirect_stdout, ...) does not keep it.
    sys.stdout = snap["stdout"]
    sys.stderr = snap["stderr"]
    threading.excepthook = snap["excepthook"]
    try:
        threading.stack_size(snap["stack_size"])
    except (ValueError, RuntimeError):
        pass
    sys.setswitchinterval(snap["switch_interval"])
    sys.modules.pop(modname, None)
)PY";

}  // namespace xfer
