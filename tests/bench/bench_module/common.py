"""What the benchmark's sections share: sizes, one thread's buffers, a timed copy from several
threads at once, engine settings written key=value, and an engine registry of each engine's own
(so that engines left open side by side do not share the CPUs: an "auto" engine lets only its
share of helpers take work while other auto engines are registered)."""
import contextlib
import os
import statistics
import sys
import threading
import time

import numpy as np

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


def size_text(n):
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def parse_size(text):
    """"1GiB", "512KiB", "3MiB" or a number of bytes."""
    for name, unit in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if text.endswith(name):
            return int(text[:-len(name)]) * unit
    return int(text)


def progress(section, trial, trials):
    print(f"{section}: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)


def median(values):
    return statistics.median(list(values))


def band(values):
    """"0.951 (0.940-0.960)": median and range."""
    v = list(values)
    return f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})"


# ---- engine settings -------------------------------------------------------------------------

def parse_settings(text):
    """Engine settings, key=value as Engine() takes them, ',' between options and ';' between
    settings: "threads=12,chunk=1MiB;threads=8,dma=chunk,wait=block". A value of digits
    is a number, anything else text (sizes as "1MiB"). Returns a list of settings, each a tuple
    of (key, value) pairs (hashable: a setting names a row). "" is no setting."""
    out = []
    for item in filter(None, (s.strip() for s in text.split(";"))):
        pairs = []
        for option in filter(None, (o.strip() for o in item.split(","))):
            key, eq, value = option.partition("=")
            if not eq:
                sys.exit(f"bench-module: '{option}' in '{item}': write options as key=value")
            pairs.append((key.strip(), int(value) if value.strip().isdigit() else value.strip()))
        out.append(tuple(pairs))
    return out


def setting_label(setting):
    return ",".join(f"{k}={v}" for k, v in setting) if setting else "defaults"


_registries = []


@contextlib.contextmanager
def own_registry(name):
    """Engines made inside take part in an engine registry of their own (a file named after
    `name`): an auto engine then takes all its helpers, whatever other engines are open."""
    path = f"/dev/shm/xferlab-bench-{os.getpid()}-{name}"
    _registries.append(path)
    before = os.environ.get("XFERLAB_ENGINE_REGISTRY")
    os.environ["XFERLAB_ENGINE_REGISTRY"] = path
    try:
        yield path
    finally:
        if before is None:
            del os.environ["XFERLAB_ENGINE_REGISTRY"]
        else:
            os.environ["XFERLAB_ENGINE_REGISTRY"] = before


def remove_registries():
    for path in _registries:
        with contextlib.suppress(OSError):
            os.unlink(path)


def make_engine(module, setting, name, **extra):
    """module.Engine(**setting, **extra) in a registry of its own."""
    with own_registry(name):
        return module.Engine(device=0, **dict(setting), **extra)


# ---- buffers and timing ----------------------------------------------------------------------

class Buffers:
    """One thread's buffers: pageable and page-locked host memory, a CuPy array, a tensor."""

    def __init__(self, cupy, torch, n, seed):
        self.n = n
        self.pageable = np.empty(n, dtype=np.uint8)
        self.pageable[...] = seed  # first touch here, never timed
        self._pinned_mem = cupy.cuda.alloc_pinned_memory(n)
        self.pinned = np.frombuffer(self._pinned_mem, dtype=np.uint8, count=n)
        self.pinned[...] = seed
        self.cupy = cupy.empty(n, dtype=cupy.uint8)
        self.torch = torch.empty(n, dtype=torch.uint8, device="cuda:0")
        self.host_tensor = torch.from_numpy(self.pageable)


class Memcpy:
    """cudaMemcpy through CuPy's runtime binding: the page-locked reference."""

    def __init__(self, cupy):
        self.runtime = cupy.cuda.runtime

    def h2d(self, dst_ptr, src_ptr, n):
        self.runtime.memcpy(dst_ptr, src_ptr, n, self.runtime.memcpyHostToDevice)

    def d2h(self, dst_ptr, src_ptr, n):
        self.runtime.memcpy(dst_ptr, src_ptr, n, self.runtime.memcpyDeviceToHost)

    def pinned_fns(self, n=None):
        """(h2d(b), d2h(b)): a page-locked cudaMemcpy of the first n bytes of b's buffers."""
        def size(b):
            return b.n if n is None else n
        return (lambda b: self.h2d(b.cupy.data.ptr, b.pinned.ctypes.data, size(b)),
                lambda b: self.d2h(b.pinned.ctypes.data, b.cupy.data.ptr, size(b)))


def timed_threads(fn, buffers, copies):
    """Every thread makes `copies` copies fn(b) of its buffers after a common start; returns the
    wall seconds from the start to the last thread's end."""
    start = threading.Barrier(len(buffers) + 1)
    errors = []

    def work(b):
        try:
            start.wait()
            for _ in range(copies):
                fn(b)
        except Exception as e:  # noqa: BLE001 - raised below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(b,)) for b in buffers]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    took = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return took


def timed(fn, reps=1):
    """Seconds per call of fn(), over `reps` calls."""
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps
