#include "python/runner_source.hpp"

namespace xfer {

const char* const kRunnerSource = R"PY(
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


def snapshot():
    """Process-wide state a payload may change, to be restored after its run."""
    return {
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
    threading.excepthook = snap["excepthook"]
    try:
        threading.stack_size(snap["stack_size"])
    except (ValueError, RuntimeError):
        pass
    sys.setswitchinterval(snap["switch_interval"])
    sys.modules.pop(modname, None)
)PY";

}  // namespace xfer
