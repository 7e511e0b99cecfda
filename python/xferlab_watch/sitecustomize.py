"""Put on PYTHONPATH by `xferlab watch` (docs/watch.md): gives each threading.Thread's OS thread
the thread's name, as Python 3.14 does itself, so that the injected library, which reads
/proc/self/task/TID/comm at a thread's first copy, can name the worker. Linux keeps 15 bytes of
a name. Nothing else of the program changes; `xferlab watch --no-thread-names` leaves it out.
Then any sitecustomize the program would have imported without this one is imported.
"""
import os
import sys


def _name_os_threads():
    if sys.version_info >= (3, 14) or not sys.platform.startswith("linux"):
        return  # Python names its threads' OS threads itself
    import threading

    original = threading.Thread._bootstrap_inner

    def _bootstrap_inner(self):
        try:
            name = self.name.encode("utf-8", "replace")[:15]
            with open(f"/proc/self/task/{threading.get_native_id()}/comm", "wb") as comm:
                comm.write(name)
        except OSError:
            pass  # a /proc without comm: the thread keeps the process's name
        original(self)

    threading.Thread._bootstrap_inner = _bootstrap_inner


def _chain_to_next_sitecustomize():
    this = sys.modules["sitecustomize"]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    del sys.modules["sitecustomize"]
    try:
        import sitecustomize  # noqa: F401  (the program's own, if it has one)
    except ImportError:
        # None: this module stays the one imported (the import machinery looks it up again).
        sys.modules["sitecustomize"] = this


_name_os_threads()
_chain_to_next_sitecustomize()
