"""GIL canary. Worker 0 copies while a pure-Python thread does nothing but read the clock. A
canary sample that falls inside a copy's [host_start, host_end] window was taken while the
copying thread was in the copy: possible only when the copy released the GIL (gil = "release")
or there is no GIL (launcher python-ft: ctx.gil is "none"); with gil = "hold" no sample can
land inside a copy.

The result is a note on the run ("canary: N of M samples inside K copies (gil=release)", or
"(no GIL)") and, when
ctx.params["samples_out"] names a file, a JSON file with the copy windows, the number of
samples inside each, and a few of those samples.

ctx.params, all optional:
  until_inside = true   (release runs) keep copying, up to max_copies, until a sample lands
                        inside a copy: on a loaded machine the canary may wait for a CPU
  max_copies   = 64
  samples_out  = "/path/file.json"
"""
import array
import bisect
import json
import threading

import xferlab


def _inside(samples, start, end):
    return bisect.bisect_right(samples, end) - bisect.bisect_left(samples, start)


def main(ctx):
    w = ctx.worker(0)
    samples = array.array("q")
    running = [True]
    started = threading.Event()

    def canary():
        now = xferlab.now
        append = samples.append
        append(now())
        started.set()
        while running[0]:
            append(now())

    t = threading.Thread(target=canary, name="xfer-canary")
    t.start()
    started.wait()
    w.enter()
    until_inside = bool(ctx.params.get("until_inside", False))
    max_copies = int(ctx.params.get("max_copies", 64))
    inside = 0
    copies = 0
    while copies < ctx.copies or (until_inside and inside == 0 and copies < max_copies):
        w.copy()
        copies += 1
        r = w.records()[-1]
        inside += _inside(samples, r["host_start_ns"], r["host_end_ns"])
    running[0] = False
    t.join()

    windows = [(r["host_start_ns"], r["host_end_ns"]) for r in w.records()]
    per_copy = [_inside(samples, a, b) for a, b in windows]
    # A few of the samples inside each window, for whoever wants to check them.
    examples = [list(samples[bisect.bisect_left(samples, a):bisect.bisect_right(samples, b)][:16])
                for a, b in windows]
    lock = "no GIL" if ctx.gil == "none" else f"gil={ctx.gil}"
    ctx.note(f"canary: {sum(per_copy)} of {len(samples)} samples inside {len(windows)} copies "
             f"({lock})")
    out = ctx.params.get("samples_out")
    if out:
        with open(out, "w") as f:
            json.dump({"gil": ctx.gil, "windows": windows, "inside_per_copy": per_copy,
                       "inside_examples": examples, "samples": len(samples)}, f)
