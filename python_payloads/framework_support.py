"""What cupy_copy.py and torch_copy.py share: their parameters, the host buffer, the threads.

Not a payload itself (it has no main): the payloads import it from their own folder.
"""
import importlib
import threading

import numpy as np

# Every copy carries a pattern of this period, shifted per worker, so that a worker's device
# buffer holding another worker's bytes (or stale ones) fails verification.
PERIOD = 251


def run_params(ctx):
    """ctx.params, with the table named after this run's label (if any) laid over it.

    A scenario's [params] is one table for every run; `[params."cupy asarray"]` gives the run
    labelled "cupy asarray" its own values (api, pinned, ...).
    """
    params = {k: v for k, v in ctx.params.items() if not isinstance(v, dict)}
    own = ctx.params.get(ctx.run_label)
    if isinstance(own, dict):
        params.update(own)
    return params


def pattern(worker_index):
    """The PERIOD bytes that worker `worker_index` copies, repeated."""
    return ((np.arange(PERIOD) + 7 * worker_index) % PERIOD).astype(np.uint8)


def host_array(nbytes, worker_index):
    """A pageable NumPy buffer holding the worker's pattern, written (first touched) by the
    calling thread, as a framework's user allocates one."""
    return np.resize(pattern(worker_index), nbytes)


def first_touch(params):
    """Which thread allocates and first touches the host buffers: "worker" (default) or "main"."""
    where = params.get("first_touch", "worker")
    if where not in ("worker", "main"):
        raise ValueError(f'params first_touch = "{where}": expected "worker" or "main"')
    return where


def import_or_skip(ctx, module, what):
    """The module `module`, or the run skipped: `what` cannot be imported by the embedded
    interpreter (not installed there, or a CUDA library it needs does not load)."""
    try:
        return importlib.import_module(module)
    except Exception as exc:
        ctx.skip(f"{what} is not importable in the embedded Python ({exc}): "
                 "see docs/payload-api.md#which-python")


def run_threads(ctx, work, name):
    """One threading.Thread per worker running work(i), as threads.py; joined before returning."""
    threads = [threading.Thread(target=work, args=(i,), name=f"{name}-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
