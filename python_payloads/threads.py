"""The seed's shape: one threading.Thread per worker, a start barrier, then the copies.

Each worker thread takes its worker, waits at the start gate with the others, then calls
w.copy() once per copy (warm-up copies first), returning to Python between copies as the seed's
task runtime did. Run it with launcher = "python", payload = "threads.py".

ctx.params (the scenario's [params] table), all optional:
  batch = true    all copies in one native call, w.copy(count=n): nothing runs in Python
                  between copies (the host loop's shape)
"""
import threading


def main(ctx):
    batch = bool(ctx.params.get("batch", False))

    def work(i):
        w = ctx.worker(i)  # also binds worker i to this thread for ctx.barrier()
        ctx.barrier()
        if batch:
            w.copy(count=ctx.copies)
        else:
            for _ in range(ctx.copies):  # warm-up + repetitions, as the host loop does
                w.copy()

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-py-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
