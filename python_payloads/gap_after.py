"""What the gap after a long call is made of: one worker thread per worker, and between two
records only the return into Python and the next call, as in threads.py; what the thread does
*during* the call is the switch, at about the same duration.

The gap after a copy (host_start of the next record - host_end of this one) is 1-3 us for
Python threads after short copies and tens of us after long ones, in every interpreter, GIL or
none (docs/results/h200-interpreters.md). This payload tells apart what a long call could leave
behind: caches the copy's bytes evicted, a thread that slept, or time alone
(docs/results/gap-after-a-call.md).

ctx.params (the run's params):
  during = "copy"     w.copy(): the worker's routine (the reference)
           "memcpy"   a timed block around xferlab.memcpy of `evict_bytes` (default: the
                      transfer's bytes) between two host buffers of this payload: the caches
                      stream the bytes, as a large copy does, on the host, with no device
           "spin"     a timed block around a pure-Python loop until `hold_ms` have passed: the
                      thread stays on its CPU, runs Python and touches no new memory
           "sleep"    a timed block around time.sleep(hold_ms): the thread leaves its CPU
           "warm"     a timed block of `hold_ms` made of back-to-back 64 KiB xferlab.memcpy
                      calls: the thread stays on its CPU and goes through Python's return from a
                      native call (the GIL released and taken) all the time, so the path the
                      gap runs through is hot when the block ends
  hold_ms = 20        how long "spin", "sleep" and "warm" last (pick a copy's duration)
  evict_bytes = N     bytes of "memcpy" (an integer)
  flush_bytes = N     (with any `during` but "copy") before the block ends, stream a buffer of N
                      bytes (xferlab.memcpy between two buffers of N bytes): with N above the
                      last-level cache, the block returns with the caches evicted; "llc": twice
                      the largest cache of CPU 0 (sysfs), so that one file fits every host
  flush_in_cache = true  the flush's control: a pair of 256 KiB buffers, which the caches
                      hold, copied again and again for as long as the flush took (timed once
                      before the start): the same kind of call, as long, that evicts nothing
  cpu = K             each worker thread pins itself to CPU K (os.sched_setaffinity) before it
                      enters: its records' cpu and its ThreadInfo show where it ran
  neighbour_bytes = N  another process, pinned to another CPU than the worker's (the highest
                      allowed one not `cpu`), streams a buffer of N bytes (or "llc", as above)
                      over and over for the whole run: the caches the CPUs share see traffic
                      that is not the worker's. Its CPU is in the run's notes
  hold_idle = true    hold CPU idle states off for the run (0 written to /dev/cpu_dma_latency,
                      kept open until main returns); skipped, saying why, where that file cannot
                      be written
With [threads] gap_stages, the loop calls xferlab.gap_mark() after each call, so that each
record's gap says when the payload's first bytecode after the call ran.
Each timed block is one record of the worker (label: the `during` value); "memcpy" checks that
the destination holds the source's bytes at the end (w.verified), and so does the flush;
"spin", "sleep" and "warm" copy nothing the run counts, and the report says their blocks'
bytes were not verified.
"""
import os
import struct
import subprocess
import sys
import threading
import time

import xferlab

DURINGS = ("copy", "memcpy", "spin", "sleep", "warm")
WARM_BYTES = 65536
IN_CACHE_BYTES = 256 * 1024


def filled(n):
    """A host buffer of n bytes holding a pattern (allocated and written before the start)."""
    b = memoryview(xferlab.host_buffer(n))
    b[:] = bytes(range(256)) * (n // 256) + bytes(n % 256)
    return b


def llc_bytes():
    """The largest cache of CPU 0 as sysfs lists it (its last level), in bytes."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    sizes = []
    for entry in os.listdir(base):
        try:
            with open(f"{base}/{entry}/size") as f:
                text = f.read().strip()
        except OSError:
            continue
        sizes.append(int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text))
    if not sizes:
        raise ValueError(f"gap_after.py: flush_bytes = 'llc': {base} lists no cache sizes")
    return max(sizes)


def flush_size(value):
    """flush_bytes as bytes: an integer, or "llc" for twice the last-level cache."""
    if value == "llc":
        return 2 * llc_bytes()
    return int(value)


def in_cache_rounds(flush_bytes, n):
    """How many copies of n bytes (a pair the caches hold) last as long as one flush of
    flush_bytes: each timed at its fastest of a few, before the start."""
    big = (filled(flush_bytes), memoryview(xferlab.host_buffer(flush_bytes)))
    flush_ns = min(xferlab.memcpy(big[1], big[0]) for _ in range(3))
    del big
    small = (filled(n), memoryview(xferlab.host_buffer(n)))
    small_ns = min(xferlab.memcpy(small[1], small[0]) for _ in range(20))
    return max(1, round(flush_ns / max(small_ns, 1)))


def hold_body(during, hold_ns, warm):
    """What "spin", "sleep" and "warm" do inside their block."""
    if during == "spin":
        def spin():
            end = time.perf_counter_ns() + hold_ns
            while time.perf_counter_ns() < end:
                pass
        return spin
    if during == "warm":
        src, dst = warm
        memcpy = xferlab.memcpy

        def keep_warm():
            end = time.perf_counter_ns() + hold_ns
            while time.perf_counter_ns() < end:
                memcpy(dst, src)
        return keep_warm
    seconds = hold_ns / 1e9
    return lambda: time.sleep(seconds)


def make_block(w, during, nbytes, buffers, hold_ns, flushed):
    """One record of worker `w`, doing `during` inside it, as a call of no arguments: chosen
    once, so that the gap between two records holds no dispatch and no lookups."""
    if during == "copy":
        return w.copy
    memcpy = xferlab.memcpy
    if during == "memcpy":
        src, dst = buffers["pair"]
        body = lambda: memcpy(dst, src)  # noqa: E731
        nbytes = src.nbytes
    else:
        body = hold_body(during, hold_ns, buffers.get("warm"))
    flush = buffers.get("flush")
    if flush is None:
        def block():
            with w.timed(nbytes, label=during):
                body()
        return block
    fsrc, fdst, rounds = flush

    def block_then_flush():
        with w.timed(nbytes, label=during):
            body()
            for _ in range(rounds):
                memcpy(fdst, fsrc)
            flushed[0] += 1
    return block_then_flush


# The neighbour: pinned to argv[1], it copies a buffer of argv[2] bytes into another, forever.
NEIGHBOUR = """import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
a = bytearray(b"x" * int(sys.argv[2]))
b = bytearray(len(a))
sys.stdout.write("streaming\\n")
sys.stdout.flush()
while True:
    b[:] = a
"""


def start_neighbour(ctx, nbytes, worker_cpu):
    """The neighbour process (NEIGHBOUR) on the highest allowed CPU that is not the worker's,
    streaming once it says so. Skips the run where no other CPU is allowed."""
    others = sorted(c for c in os.sched_getaffinity(0) if c != worker_cpu)
    if not others:
        ctx.skip("gap_after.py: neighbour_bytes: no CPU other than the worker's is allowed")
    proc = subprocess.Popen([sys.executable, "-c", NEIGHBOUR, str(others[-1]), str(nbytes)],
                            stdout=subprocess.PIPE)
    if proc.stdout.readline().strip() != b"streaming":
        proc.kill()
        raise RuntimeError("gap_after.py: the neighbour process did not start streaming")
    ctx.note(f"gap_after.py: a neighbour process streams {nbytes} bytes on CPU {others[-1]}")
    return proc


def cpu_seconds(pid):
    """User and system CPU time of process `pid` so far (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hold_idle_states(ctx):
    """0 us to /dev/cpu_dma_latency: the kernel keeps every CPU out of its idle states while
    the file stays open. Returns the open file; skips the run where it cannot be written."""
    try:
        fd = os.open("/dev/cpu_dma_latency", os.O_RDWR)
    except OSError as e:
        ctx.skip(f"gap_after.py: hold_idle: /dev/cpu_dma_latency: {e.strerror}: CPU idle "
                 "states cannot be held off here")
    os.write(fd, struct.pack("i", 0))
    now = struct.unpack("i", os.pread(fd, 4, 0))[0]
    ctx.note(f"gap_after.py: CPU idle states held off: /dev/cpu_dma_latency reads {now} us")
    return fd


def main(ctx):
    p = ctx.params
    during = p.get("during", "copy")
    if during not in DURINGS:
        raise ValueError(f"gap_after.py: during = {during!r}: expected copy, memcpy, spin, "
                         "sleep or warm")
    hold_ns = int(float(p.get("hold_ms", 20)) * 1e6)
    if hold_ns <= 0 and during in ("spin", "sleep", "warm"):
        raise ValueError(f"gap_after.py: hold_ms must be > 0, got {p.get('hold_ms')}")
    flush_bytes = flush_size(p.get("flush_bytes", 0))
    if flush_bytes and during == "copy":
        raise ValueError("gap_after.py: flush_bytes needs a timed block: during = memcpy, "
                         "spin, sleep or warm")
    cpu = p.get("cpu")
    buffers = [{} for _ in range(ctx.threads)]
    for b in buffers:  # allocated and written before the start: never timed
        if during == "memcpy":
            n = int(p.get("evict_bytes", ctx.bytes))
            b["pair"] = (filled(n), memoryview(xferlab.host_buffer(n)))
        if during == "warm":
            b["warm"] = (filled(WARM_BYTES), memoryview(xferlab.host_buffer(WARM_BYTES)))
        if flush_bytes and p.get("flush_in_cache"):
            n = min(IN_CACHE_BYTES, flush_bytes)
            b["flush"] = (filled(n), memoryview(xferlab.host_buffer(n)), in_cache_rounds(
                flush_bytes, n))
        elif flush_bytes:
            b["flush"] = (filled(flush_bytes), memoryview(xferlab.host_buffer(flush_bytes)), 1)
    in_cache = flush_bytes and p.get("flush_in_cache")
    ctx.note(f"gap_after.py: during = {during}"
             + (f", {hold_ns / 1e6:g} ms" if during in ("spin", "sleep", "warm") else "")
             + (f", then {flush_bytes} bytes streamed" if flush_bytes and not in_cache else "")
             + (f", then {buffers[0]['flush'][2]} copies of {IN_CACHE_BYTES} bytes the caches "
                f"hold, as long as a flush of {flush_bytes} bytes" if in_cache else "")
             + (f", pinned to CPU {cpu}" if cpu is not None else "")
             + (", xferlab.gap_mark() after each call" if ctx.gap_stages else ""))
    flushed = [[0] for _ in range(ctx.threads)]

    def work(i):
        if cpu is not None:
            os.sched_setaffinity(0, {int(cpu)})  # this thread (Linux: 0 is the caller)
        w = ctx.worker(i)
        w.enter()
        one = make_block(w, during, ctx.bytes, buffers[i], hold_ns, flushed[i])
        ctx.barrier()
        if ctx.gap_stages:
            mark = xferlab.gap_mark
            for _ in range(ctx.copies):
                one()
                mark()
        else:
            for _ in range(ctx.copies):
                one()
        checks = []
        if during == "memcpy":
            src, dst = buffers[i]["pair"]
            checks.append((src == dst, "destination == source after the last memcpy"))
        if flush_bytes:
            src, dst, _ = buffers[i]["flush"]
            checks.append((src == dst and flushed[i][0] == ctx.copies,
                           f"the flush buffer streamed in each of the {ctx.copies} blocks"))
        if checks:
            w.verified(all(ok for ok, _ in checks), "; ".join(how for _, how in checks))

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-gap-{i}")
               for i in range(ctx.threads)]
    idle_fd = neighbour = None
    try:  # what the run holds is let go whatever happens (a skip raises)
        idle_fd = hold_idle_states(ctx) if p.get("hold_idle") else None
        neighbour_bytes = flush_size(p.get("neighbour_bytes", 0))
        if neighbour_bytes:
            neighbour = start_neighbour(ctx, neighbour_bytes, None if cpu is None else int(cpu))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if neighbour is not None:
            ctx.note(f"gap_after.py: the neighbour ran {cpu_seconds(neighbour.pid):.2f} s on its "
                     "CPU while the run ran")
    finally:
        if idle_fd is not None:
            os.close(idle_fd)
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
