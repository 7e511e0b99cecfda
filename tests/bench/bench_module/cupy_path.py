"""Section cupy-path: why one caller to a CuPy-owned array was slower than to a torch tensor
(issue #45). The same copy, 1 GiB each way, one caller, to and from six views of device
memory that tell the hypotheses apart:
  cupy / torch                    each framework's own array, as users copy
  torch view of cupy memory       CuPy's memory behind a torch tensor (torch.as_tensor)
  cupy view of torch memory       torch's memory behind a CuPy array (cupy.asarray)
  cupy, interface without stream  CuPy's array through __cuda_array_interface__ version 2: no
                                  "stream", so no wait for the legacy stream before the copy
  torch, interface with stream 1  torch's tensor through version 3 with "stream": 1 (CuPy's
                                  default): the legacy stream waited for, as for CuPy
If the rate follows the memory (who allocated it), the device memory is the cause; if it
follows the object or the "stream" key, xferlab's path for it is (memory_views, copy_route:
cudaStreamSynchronize(cudaStreamLegacy) before a staged copy). Each view is copied by the shared
engine and by a measuring engine (measure=True, the same defaults), which splits a copy's time
into the engine's part and the caller's (finding the memory, waiting for streams). Also timed
alone: a legacy-stream synchronize, and reading each framework's interface."""
import random
import statistics
import time

import numpy as np

from .common import MiB, band, make_engine, progress

REPS = 2  # copies per measurement


class Interface:
    """Device memory behind a __cuda_array_interface__ of our making."""

    def __init__(self, array, version, stream):
        cai = dict(array.__cuda_array_interface__)
        cai["version"] = version
        cai.pop("stream", None)
        if stream is not None:
            cai["stream"] = stream
        self.__cuda_array_interface__ = cai
        self.keep = array


def views(ctx, a, b):
    torch, cupy = ctx.torch, ctx.cupy
    return {
        "cupy": a,
        "torch": b,
        "torch view of cupy memory": torch.as_tensor(a, device="cuda"),
        "cupy view of torch memory": cupy.asarray(b),
        "cupy, interface without stream": Interface(a, 2, None),
        "torch, interface with stream 1": Interface(b, 3, 1),
    }


def micro_us(fn, reps=200):
    """Median microseconds of one call of fn()."""
    ns = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ns.append(time.perf_counter_ns() - t0)
    return statistics.median(ns) / 1e3


def run(ctx, results):
    n, trials, cupy, torch = ctx.n, max(ctx.trials, 7), ctx.cupy, ctx.torch
    host = np.full(n, 7, dtype=np.uint8)
    pinned_mem = cupy.cuda.alloc_pinned_memory(n)
    pinned = np.frombuffer(pinned_mem, dtype=np.uint8, count=n)
    a = cupy.empty(n, dtype=cupy.uint8)
    b = torch.empty(n, dtype=torch.uint8, device="cuda:0")
    targets = views(ctx, a, b)
    measuring = make_engine(ctx.xferlab, (("measure", True),), "cupy-path")
    engines = {"shared": ctx.xferlab, "measured": measuring}
    rows = results.setdefault("cupy_path", [])
    facts = results.setdefault("cupy_path_facts", {})
    facts["cupy_ptr_mod_2MiB"] = a.data.ptr % (2 * MiB)
    facts["torch_ptr_mod_2MiB"] = b.data_ptr() % (2 * MiB)
    facts["cupy_interface"] = {k: str(v) for k, v in a.__cuda_array_interface__.items()
                               if k != "data"}
    facts["torch_interface"] = {k: str(v) for k, v in b.__cuda_array_interface__.items()
                                if k != "data"}
    facts["legacy_stream_sync_us"] = micro_us(lambda: cupy.cuda.runtime.streamSynchronize(1))
    facts["cupy_interface_us"] = micro_us(lambda: a.__cuda_array_interface__)
    facts["torch_interface_us"] = micro_us(lambda: b.__cuda_array_interface__)

    def copy(engine, view, h2d):
        return (lambda: engine.copy(view, host)) if h2d else (lambda: engine.copy(host, view))

    def pinned_copy(h2d):
        return (lambda: ctx.memcpy.h2d(a.data.ptr, pinned.ctypes.data, n)) if h2d else \
            (lambda: ctx.memcpy.d2h(pinned.ctypes.data, a.data.ptr, n))

    for h2d in (True, False):  # warm-up
        pinned_copy(h2d)()
        for e in engines.values():
            for v in targets.values():
                copy(e, v, h2d)()
    for trial in range(trials):
        order = [(d, e, v) for d in ("h2d", "d2h") for e in [None, *engines] for v in
                 (targets if e else [None])]
        random.Random(4600 + trial).shuffle(order)
        for direction, e, v in order:
            h2d = direction == "h2d"
            fn = pinned_copy(h2d) if e is None else copy(engines[e], targets[v], h2d)
            before = measuring.stats()["edges"] if e == "measured" else None
            t0 = time.perf_counter()
            for _ in range(REPS):
                fn()
            wall = (time.perf_counter() - t0) / REPS
            row = {"trial": trial, "direction": direction, "engine": e, "view": v,
                   "seconds_per_copy": wall, "GBps": n / wall / 1e9}
            if before is not None:
                row.update(edges_per_copy(before, measuring.stats()["edges"]))
            rows.append(row)
        progress("cupy-path", trial, trials)
    assert a[:16].get().tolist() == [7] * 16 and int(b[-1].item()) == 7
    measuring.close()
    print_table(rows, facts, trials)


def edges_per_copy(before, after):
    """The measuring engine's figures for the copies between two stats(), per copy."""
    def total(e, key):
        return e[key] * e["copies"]
    copies = max(after["copies"] - before["copies"], 1)
    out = {k: (total(after, k) - total(before, k)) / copies
           for k in ("to_first_dma_us", "dma_span_us", "after_last_dma_us", "link_starved_us")}
    out["in_engine_s"] = (after["in_engine_s"] - before["in_engine_s"]) / copies
    return out


def print_table(rows, facts, trials):
    print(f"\n== the CuPy path, one caller, {trials} interleaved trials: x the page-locked "
          "cudaMemcpy of the same trial (median, min-max); measured engine: ms per copy in the "
          "engine | outside it (the caller's part), before the first DMA | span | after the "
          "last, us")
    print(f"facts: {facts}")
    for direction in ("h2d", "d2h"):
        at = [r for r in rows if r["direction"] == direction]
        pinned = {r["trial"]: r["GBps"] for r in at if r["engine"] is None}
        print(f"{direction}: pinned {statistics.median(pinned.values()):.1f} GB/s")
        for view in dict.fromkeys(r["view"] for r in at if r["view"]):
            mine = {e: [r for r in at if r["view"] == view and r["engine"] == e]
                    for e in ("shared", "measured")}
            x = {e: [r["GBps"] / pinned[r["trial"]] for r in v] for e, v in mine.items()}
            m = mine["measured"]
            med = statistics.median
            inside = med(r["in_engine_s"] for r in m) * 1e3
            outside = med(r["seconds_per_copy"] - r["in_engine_s"] for r in m) * 1e3
            print(f"  {view:<32} shared {band(x['shared'])}  measured {band(x['measured'])}  "
                  f"{inside:.2f} | {outside:.3f} ms  {med(r['to_first_dma_us'] for r in m):.0f} | "
                  f"{med(r['dma_span_us'] for r in m):.0f} | "
                  f"{med(r['after_last_dma_us'] for r in m):.0f}")
