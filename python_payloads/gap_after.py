"""What the gap after a long call is made of: one worker thread per worker, and between two
records only the return into Python and the next call, as in threads.py; what the thread does
*during* the call is the switch, at about the same duration.

The gap after a copy (host_start of the next record - host_end of this one) is 1-3 us for
Python threads after short copies and tens of us after long ones, in every interpreter, GIL or
none (docs/results/h200-interpreters.md). This payload tells apart what a long call could leave
behind: caches the copy's bytes evicted, a thread that slept, or time alone.

ctx.params (the run's params):
  during = "copy"     w.copy(): the worker's routine (the reference)
           "memcpy"   a timed block around xferlab.memcpy of `evict_bytes` (default: the
                      transfer's bytes) between two host buffers of this payload: the caches
                      stream the bytes, as a large copy does, on the host, with no device
           "spin"     a timed block around a pure-Python loop until `hold_ms` have passed: the
                      thread stays on its CPU, runs Python and touches no new memory
           "sleep"    a timed block around time.sleep(hold_ms): the thread leaves its CPU
  hold_ms = 20        how long "spin" and "sleep" last (pick a copy's duration)
  evict_bytes = N     bytes of "memcpy" (an integer)
Each timed block is one record of the worker (label: the `during` value); "memcpy" checks that
the destination holds the source's bytes at the end (w.verified); "spin" and "sleep" copy
nothing, and the report says their blocks' bytes were not verified.
"""
import threading
import time

import xferlab


def make_block(w, during, nbytes, pair, hold_ns):
    """One record of worker `w`, doing `during` inside it, as a call of no arguments: chosen
    once, so that the gap between two records holds no dispatch and no lookups."""
    if during == "copy":
        return w.copy
    if during == "memcpy":
        src, dst = pair

        def memcpy_block():
            with w.timed(src.nbytes, label="memcpy"):
                xferlab.memcpy(dst, src)
        return memcpy_block
    if during == "spin":

        def spin_block():
            with w.timed(nbytes, label="spin"):
                end = time.perf_counter_ns() + hold_ns
                while time.perf_counter_ns() < end:
                    pass
        return spin_block
    seconds = hold_ns / 1e9

    def sleep_block():
        with w.timed(nbytes, label="sleep"):
            time.sleep(seconds)
    return sleep_block


def main(ctx):
    during = ctx.params.get("during", "copy")
    if during not in ("copy", "memcpy", "spin", "sleep"):
        raise ValueError(f"gap_after.py: during = {during!r}: expected copy, memcpy, spin or "
                         "sleep")
    hold_ns = int(float(ctx.params.get("hold_ms", 20)) * 1e6)
    if hold_ns <= 0 and during in ("spin", "sleep"):
        raise ValueError(f"gap_after.py: hold_ms must be > 0, got {ctx.params.get('hold_ms')}")
    buffers = {}
    if during == "memcpy":
        n = int(ctx.params.get("evict_bytes", ctx.bytes))
        for i in range(ctx.threads):  # allocated and written before the start: never timed
            src, dst = memoryview(xferlab.host_buffer(n)), memoryview(xferlab.host_buffer(n))
            src[:] = bytes(range(256)) * (n // 256) + bytes(n % 256)
            buffers[i] = (src, dst)
    ctx.note(f"gap_after.py: during = {during}"
             + (f", {hold_ns / 1e6:g} ms" if during in ("spin", "sleep") else ""))

    def work(i):
        w = ctx.worker(i)
        one = make_block(w, during, ctx.bytes, buffers.get(i), hold_ns)
        ctx.barrier()
        for _ in range(ctx.copies):
            one()
        if during == "memcpy":
            src, dst = buffers[i]
            w.verified(src == dst, "destination == source after the last memcpy")

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-gap-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
