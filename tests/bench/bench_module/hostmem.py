"""Section hostmem: the host-memory ceiling of staging (issue #45). A staged byte is read from
pageable memory, written into a page-locked buffer (with cached stores its line is read first:
the read-for-ownership) and read by the DMA: 3-4 bytes of host memory traffic per byte
delivered, against 1 for a DMA from page-locked memory. Measured as the rate a concurrent
memory-bound load loses: load threads copy 64 MiB arrays (numpy.copyto, the GIL released) on
half the CPUs, alone and while one caller copies 1 GiB to or from the device on the other half
(an engine pinned there). With the load's traffic per byte it copies unknown, the loss is read
against the loss a page-locked DMA causes, which moves 1 byte of host memory per byte:
    traffic per delivered byte (method) = (loss / rate)(method) / (loss / rate)(pinned H2D)
Also the load alone on every CPU: the host's own copy ceiling. Interleaved trials, 1 s each."""
import os
import random
import statistics
import threading
import time

import numpy as np

from .common import MiB, make_engine, progress

WINDOW_S = 0.8
LOAD_BYTES = 64 * MiB


class Load:
    """Threads pinned one to a CPU, each copying between two arrays of its own until stopped;
    bytes() counts the bytes copied (each read once and written once)."""

    def __init__(self, cpus, arrays):
        self.cpus = cpus
        self.counts = [0] * len(cpus)
        self.stop = threading.Event()
        self.arrays = arrays
        self.threads = [threading.Thread(target=self.work, args=(i,)) for i in range(len(cpus))]

    def work(self, i):
        os.sched_setaffinity(0, {self.cpus[i]})  # this thread only
        src, dst = self.arrays[i]
        while not self.stop.is_set():
            np.copyto(dst, src)
            self.counts[i] += LOAD_BYTES

    def bytes(self):
        return sum(self.counts)

    def __enter__(self):
        for t in self.threads:
            t.start()
        time.sleep(0.2)  # every thread copying
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def transfer_loop(fn, n):
    """Copies with fn() for WINDOW_S; returns (seconds, bytes)."""
    t0 = time.perf_counter()
    copied = 0
    while time.perf_counter() - t0 < WINDOW_S:
        fn()
        copied += n
    return time.perf_counter() - t0, copied


def window(load, fn, n):
    """One measurement: (transfer GB/s or None, load GB/s or None) over the same window."""
    b0, t0 = (load.bytes() if load else 0), time.perf_counter()
    if fn is None:
        time.sleep(WINDOW_S)
        seconds, copied = time.perf_counter() - t0, 0
    else:
        seconds, copied = transfer_loop(fn, n)
    load_gbps = (load.bytes() - b0) / (time.perf_counter() - t0) / 1e9 if load else None
    return (copied / seconds / 1e9 if fn else None), load_gbps


def run(ctx, results):
    n, cupy = ctx.n, ctx.cupy
    trials = ctx.args.hostmem_trials
    cpus = sorted(os.sched_getaffinity(0))
    half = len(cpus) // 2
    engine_cpus, load_cpus = cpus[:half], cpus[half:]
    facts = results.setdefault("hostmem_facts", {"engine_cpus": engine_cpus,
                                                 "load_cpus": load_cpus})
    common = (("threads", len(engine_cpus)), ("affinity", engine_cpus))
    cached = make_engine(ctx.xferlab, common, "hostmem")
    facts["engine_note"] = cached.stats()["note"]
    host = np.full(n, 5, dtype=np.uint8)
    pinned_mem = cupy.cuda.alloc_pinned_memory(n)
    pinned = np.frombuffer(pinned_mem, dtype=np.uint8, count=n)
    dev = cupy.empty(n, dtype=cupy.uint8)
    methods = {
        "pinned h2d": lambda: ctx.memcpy.h2d(dev.data.ptr, pinned.ctypes.data, n),
        "pinned d2h": lambda: ctx.memcpy.d2h(pinned.ctypes.data, dev.data.ptr, n),
        "staged h2d": lambda: cached.copy(dev, host),
        "staged d2h": lambda: cached.copy(host, dev),
    }
    for fn in methods.values():
        fn()
    arrays = [(np.full(LOAD_BYTES, 1, np.uint8), np.full(LOAD_BYTES, 2, np.uint8)) for _ in cpus]
    rows = results.setdefault("hostmem", [])
    for trial in range(trials):
        rnd = random.Random(4800 + trial)
        plan = [(m, loaded) for m in [None, *methods] for loaded in (False, True)
                if m or loaded] + [("all cpus", True)]
        rnd.shuffle(plan)
        for method, loaded in plan:
            if method == "all cpus":
                with Load(cpus, arrays) as load:
                    _, load_gbps = window(load, None, n)
                rows.append({"trial": trial, "method": None, "all_cpus": True,
                             "load_GBps": load_gbps})
                continue
            fn = methods.get(method)
            if loaded:
                with Load(load_cpus, arrays) as load:
                    gbps, load_gbps = window(load, fn, n)
            else:
                gbps, load_gbps = window(None, fn, n)
            rows.append({"trial": trial, "method": method, "loaded": loaded, "GBps": gbps,
                         "load_GBps": load_gbps})
        progress("hostmem", trial, trials)
    cached.close()
    results["hostmem_summary"] = summarize(rows, list(methods), facts)


def summarize(rows, methods, facts):
    med = statistics.median
    alone = med(r["load_GBps"] for r in rows if r["method"] is None and not r.get("all_cpus"))
    every = med(r["load_GBps"] for r in rows if r.get("all_cpus"))
    print(f"\n== host memory: load copies on CPUs {facts['load_cpus']}, engine on "
          f"{facts['engine_cpus']}; the load alone {alone:.1f} GB/s copied (every CPU: "
          f"{every:.1f}); per method: GB/s alone | with the load, the load's GB/s beside it, its "
          "loss per GB/s delivered, and host traffic per delivered byte against a pinned DMA's")
    per = {}
    for m in methods:
        free = med(r["GBps"] for r in rows if r["method"] == m and not r["loaded"])
        loaded = [r for r in rows if r["method"] == m and r["loaded"]]
        rate = med(r["GBps"] for r in loaded)
        load = med(r["load_GBps"] for r in loaded)
        per[m] = {"alone_GBps": free, "loaded_GBps": rate, "load_GBps": load,
                  "loss_per_delivered": (alone - load) / rate}
    base = per["pinned h2d"]["loss_per_delivered"]
    for m, v in per.items():
        v["traffic_per_byte"] = v["loss_per_delivered"] / base if base > 0 else None
        traffic = f"{v['traffic_per_byte']:.2f}" if v["traffic_per_byte"] is not None else "-"
        print(f"  {m:<22} {v['alone_GBps']:6.1f} | {v['loaded_GBps']:6.1f} GB/s, load "
              f"{v['load_GBps']:6.1f} GB/s, loss {v['loss_per_delivered']:.2f} per GB/s, "
              f"traffic x{traffic}")
    return {"load_alone_GBps": alone, "load_every_cpu_GBps": every, "methods": per}
