"""Section memmap: weights from a file (issue #45). A 1 GiB file mapped with numpy.memmap and
copied once to the device right after it is mapped, as a loader does (every page of the mapping
is touched first by the copy), with the page cache warm and cold, against the loader's other
way: read() into page-locked memory, then cudaMemcpy from it. Methods, to the device, one
caller, interleaved trials (the warm ones after one read of the whole file, the cold ones each
after the file's pages were dropped: posix_fadvise DONTNEED; the fraction still resident is
recorded, since not every kernel or sandbox drops them):
  pinned                 cudaMemcpy from page-locked memory (the reference)
  numpy xferlab          xferlab.copy from anonymous memory already faulted in (the engine's
                         own rate)
  memmap xferlab         the mapping, the shared engine
  memmap read            the mapping, an engine with mapped_files="read" (helpers read the
                         file behind it into the page-locked buffers: no page faulted in)
  memmap copy            the mapping, an engine with mapped_files="copy" (helpers copy from
                         the mapping: every page faulted in by the copy)
  memmap cupy.asarray    CuPy's own copy of the mapping
  memmap torch           torch.from_numpy(mapping).to("cuda")
  read + cudaMemcpy      f.readinto(page-locked buffer), then cudaMemcpy (time of both)"""
import ctypes
import mmap
import os
import random
import statistics
import time
import warnings

import numpy as np

from .common import MiB, band, make_engine, progress

_libc = ctypes.CDLL(None, use_errno=True)


def write_file(path, n):
    """`n` bytes of a 64 MiB pattern repeated, on disk (fsync'd); returns the pattern."""
    block = (np.arange(64 * MiB, dtype=np.uint64) * 2654435761 % 251).astype(np.uint8)
    with open(path, "wb") as f:
        for at in range(0, n, block.size):
            f.write(block[:min(block.size, n - at)].tobytes())
        f.flush()
        os.fsync(f.fileno())
    return block


def resident_fraction(path):
    """The fraction of the file's pages in the page cache (mincore of a fresh mapping)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        m = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ)
        view = np.frombuffer(m, dtype=np.uint8)
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = (ctypes.c_ubyte * pages)()
        rc = _libc.mincore(ctypes.c_void_p(view.ctypes.data), ctypes.c_size_t(size), vec)
        del view
        m.close()
    if rc != 0:
        return -1.0
    return sum(v & 1 for v in vec) / pages


def drop_cache(path):
    with open(path, "rb") as f:
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def warm_cache(path):
    with open(path, "rb", buffering=0) as f:
        while f.read(64 * MiB):
            pass


def run(ctx, results):
    n = ctx.n
    folder = ctx.args.memmap_dir or os.environ.get("TMPDIR") or "/tmp"
    path = os.path.join(folder, f"xferlab-bench-{os.getpid()}.bin")
    facts = results.setdefault("memmap_facts", {"file": path})
    try:
        facts["filesystem"] = os.popen(f"df -T {folder} | tail -1").read().strip()
        block = write_file(path, n)
        run_methods(ctx, results, path, block, facts)
    finally:
        if os.path.exists(path):
            os.unlink(path)


def run_methods(ctx, results, path, block, facts):
    n, trials, cupy, torch, xferlab = ctx.n, ctx.trials, ctx.cupy, ctx.torch, ctx.xferlab
    dev = cupy.empty(n, dtype=cupy.uint8)
    pinned_mem = cupy.cuda.alloc_pinned_memory(n)
    pinned = np.frombuffer(pinned_mem, dtype=np.uint8, count=n)
    anon = np.full(n, 3, dtype=np.uint8)
    reading = make_engine(xferlab, (("mapped_files", "read"),), "read")
    copying = make_engine(xferlab, (("mapped_files", "copy"),), "copy")
    # The same with every helper the device's CPUs allow (12 here), whatever the auto rule's
    # memcpy probe gave on the day (9 to 12 helpers on one H100 host, three calls).
    most = ctx.args.memmap_helpers
    reading_most = make_engine(xferlab, (("mapped_files", "read"), ("threads", most)), "read-most")
    copying_most = make_engine(xferlab, (("mapped_files", "copy"), ("threads", most)), "copy-most")
    facts["read_note"] = reading.stats()["note"]
    facts["helpers"] = {"auto": reading.stats()["threads"], "most": most}
    parts = results.setdefault("memmap_parts", [])  # each mapped method's map, copy, unmap

    def mapped(copy, name=None):
        def fn():
            t0 = time.perf_counter()
            mm = np.memmap(path, dtype=np.uint8, mode="r")
            t1 = time.perf_counter()
            copy(mm)
            t2 = time.perf_counter()
            del mm  # the last reference: munmap, which drops the pages the copy mapped
            t3 = time.perf_counter()
            if name:
                parts.append({"method": name, "map_s": t1 - t0, "copy_s": t2 - t1,
                              "unmap_s": t3 - t2})
        return fn

    def sync():
        cupy.cuda.get_current_stream().synchronize()

    def via_cupy(mm):
        d = cupy.asarray(mm)
        sync()
        del d

    def via_torch(mm):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # from_numpy of a read-only mapping
            t = torch.from_numpy(mm).to("cuda")
        torch.cuda.synchronize()
        del t

    def read_pinned():
        with open(path, "rb", buffering=0) as f:
            got = f.readinto(memoryview(pinned))
        assert got == n
        ctx.memcpy.h2d(dev.data.ptr, pinned.ctypes.data, n)

    warm = {
        "pinned": lambda: ctx.memcpy.h2d(dev.data.ptr, pinned.ctypes.data, n),
        "numpy xferlab": lambda: xferlab.copy(dev, anon),
        "memmap xferlab": mapped(lambda mm: xferlab.copy(dev, mm), "memmap xferlab"),
        "memmap read": mapped(lambda mm: reading.copy(dev, mm), "memmap read"),
        "memmap copy": mapped(lambda mm: copying.copy(dev, mm), "memmap copy"),
        f"memmap read, {most} helpers": mapped(lambda mm: reading_most.copy(dev, mm),
                                               f"memmap read, {most} helpers"),
        f"memmap copy, {most} helpers": mapped(lambda mm: copying_most.copy(dev, mm),
                                               f"memmap copy, {most} helpers"),
        "memmap cupy.asarray": mapped(via_cupy),
        "memmap torch": mapped(via_torch),
        "read + cudaMemcpy": read_pinned,
    }
    cold = {f"cold {k}": warm[k] for k in ("memmap xferlab", "memmap read", "memmap copy",
                                          "read + cudaMemcpy")}
    rows = results.setdefault("memmap", [])
    for fn in warm.values():  # warm-up: every method once
        fn()
    parts.clear()
    for trial in range(trials):
        rnd = random.Random(4700 + trial)
        warm_cache(path)
        resident = resident_fraction(path)
        order = list(warm)
        rnd.shuffle(order)
        for name in order:
            took = time_one(warm[name])
            rows.append({"trial": trial, "method": name, "seconds": took, "GBps": n / took / 1e9,
                         "resident_before": resident})
        order = list(cold)
        rnd.shuffle(order)
        for name in order:
            drop_cache(path)
            resident = resident_fraction(path)
            took = time_one(cold[name])
            rows.append({"trial": trial, "method": name, "seconds": took, "GBps": n / took / 1e9,
                         "resident_before": resident})
        progress("memmap", trial, trials)
    # The bytes arrived: the mapping once more through each engine, every byte compared.
    zeros = np.zeros(n, dtype=np.uint8)
    for engine in (xferlab, reading, copying, reading_most, copying_most):
        dev.set(zeros)
        mapped(lambda mm: engine.copy(dev, mm))()
        assert_pattern(dev, block, n)
    facts["read_from_files_bytes"] = reading.stats()["bytes"]["read_from_files"]
    facts["copy_engine_read_from_files_bytes"] = copying.stats()["bytes"]["read_from_files"]
    for engine in (reading, copying, reading_most, copying_most):
        engine.close()
    print_table(rows, facts, trials)
    print_parts(parts)


def assert_pattern(dev, block, n):
    """Every byte of `dev` is the file's: `block` repeated."""
    assert np.array_equal(dev.get(), np.resize(block, n)), "a byte differs from the file"


def time_one(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def print_table(rows, facts, trials):
    print(f"\n== weights from a file, to the device, one caller, {trials} trials: GB/s and "
          "x pinned of the same trial (median, min-max); resident: the file's fraction in the "
          "page cache before the method (median)")
    print(f"facts: {facts}")
    pinned = {r["trial"]: r["GBps"] for r in rows if r["method"] == "pinned"}
    for name in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == name]
        x = [r["GBps"] / pinned[r["trial"]] for r in mine]
        print(f"  {name:<26} {statistics.median(r['GBps'] for r in mine):6.1f} GB/s  {band(x)}  "
              f"resident {statistics.median(r['resident_before'] for r in mine):.2f}")


def print_parts(parts):
    """The mapped methods' time in np.memmap, the copy and the unmap (ms, medians; warm)."""
    if not parts:
        return
    print("  warm, where each mapped method's time went (ms, medians): np.memmap / copy / del")
    for name in dict.fromkeys(p["method"] for p in parts):
        mine = [p for p in parts if p["method"] == name]
        print(f"    {name:<26} " + " / ".join(
            f"{1e3 * statistics.median(p[k] for p in mine):.2f}"
            for k in ("map_s", "copy_s", "unmap_s")))
