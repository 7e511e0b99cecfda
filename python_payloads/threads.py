"""The seed's shape: one threading.Thread per worker, a start barrier, then the copies.

Each worker thread takes its worker, waits at the start gate with the others, then calls
w.copy() once per copy (warm-up copies first), returning to Python between copies as the seed's
task runtime did. Run it with launcher = "python", payload = "threads.py" (or python-ft,
python-subinterp: the same file in a free-threaded interpreter, or in a sub-interpreter per
worker).

ctx.params (the scenario's [params] table), all optional:
  batch = true           all copies in one native call, w.copy(count=n): nothing runs in Python
                         between copies (the host loop's shape)
  work_us = 50           pure-Python arithmetic after every copy, as much as takes this long on
                         one thread alone in this interpreter (calibrated before the threads
                         start; a note says how many iterations that is): a task runtime's
                         bookkeeping between copies. Under a GIL the workers' work takes turns;
                         without one (python-ft) or with a GIL each (python-subinterp) it need not
  work_iterations = N    the same, as a fixed number of iterations instead (the same work in
                         every interpreter, however fast it runs there)
With work, a note gives each worker's work per copy as it took while the others ran (p50, p90).
"""
import os
import threading
import time

try:
    import fcntl  # to take turns calibrating (iterations_for); not essential
except ImportError:
    fcntl = None


def python_work(iterations):
    """Fixed pure-Python arithmetic: a loop of integer operations that no C call shortens."""
    x = 0
    for i in range(iterations):
        x = (x * 31 + i) % 1000003
    return x


def iterations_for(work_us):
    """How many iterations of python_work take `work_us` on this thread alone: the median of
    five timings of a batch long enough (>= 20 ms) for the clock not to matter. Calibrations take
    turns through a file lock: under python-subinterp every worker's interpreter calibrates at
    once, and on a machine with fewer CPUs than workers they would time each other."""
    if fcntl is None:
        return _calibrate(work_us)
    lock = os.path.join(os.environ.get("TMPDIR") or "/tmp", "xferlab-python-work-calibration.lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            return _calibrate(work_us)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _calibrate(work_us):
    n = 1000
    while True:
        t0 = time.perf_counter_ns()
        python_work(n)
        if time.perf_counter_ns() - t0 >= 20_000_000:
            break
        n *= 2
    per_iteration = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        python_work(n)
        per_iteration.append((time.perf_counter_ns() - t0) / n)
    per_iteration.sort()
    return max(1, round(work_us * 1000 / per_iteration[2])), per_iteration[2]


def work_settings(ctx):
    """(iterations per copy, its note) from ctx.params; (0, None) without work."""
    work_us = float(ctx.params.get("work_us", 0))
    iterations = int(ctx.params.get("work_iterations", 0))
    if work_us < 0 or iterations < 0:
        raise ValueError(f"threads.py: work_us ({work_us}) and work_iterations ({iterations}) "
                         "must be >= 0")
    if work_us and iterations:
        raise ValueError("threads.py: set work_us or work_iterations, not both")
    if (work_us or iterations) and ctx.params.get("batch", False):
        raise ValueError("threads.py: work between copies needs batch = false (a batch runs "
                         "every copy in one native call, with no Python between them)")
    if work_us:
        iterations, ns = iterations_for(work_us)
        return iterations, (f"python work between copies: {iterations} iterations per copy, "
                            f"{iterations * ns / 1000:.1f} us on one thread alone "
                            f"(work_us = {work_us:g}, calibrated here)")
    if iterations:
        return iterations, f"python work between copies: {iterations} iterations per copy"
    return 0, None


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main(ctx):
    batch = bool(ctx.params.get("batch", False))
    iterations, work_note = work_settings(ctx)
    if work_note:
        ctx.note(work_note)
    work_ns = {}  # worker index -> the time its work took after each copy

    def work(i):
        w = ctx.worker(i)  # also binds worker i to this thread for ctx.barrier()
        ctx.barrier()
        if batch:
            w.copy(count=ctx.copies)
            return
        took = []
        for _ in range(ctx.copies):  # warm-up + repetitions, as the host loop does
            w.copy()
            if iterations:
                t0 = time.perf_counter_ns()
                python_work(iterations)
                took.append(time.perf_counter_ns() - t0)
        work_ns[w.index] = sorted(took)

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-py-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if iterations:
        ctx.note("python work per copy while the workers ran (p50/p90): " + ", ".join(
            f"w{k} {percentile(v, 0.5) / 1000:.1f}/{percentile(v, 0.9) / 1000:.1f} us"
            for k, v in sorted(work_ns.items()) if v))
