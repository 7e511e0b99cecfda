"""Workers as tasks of a concurrent.futures.ThreadPoolExecutor (the other common way Python code
runs work on threads). Each task takes one worker, waits at the start gate, copies.

The pool has exactly ctx.threads threads; every task blocks at the gate until all have
arrived, so each task runs on its own pool thread. A task's exception reaches main(ctx)
through its future (pool threads do not go through threading.excepthook).
"""
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait


def main(ctx):
    def work(i):
        w = ctx.worker(i)
        w.barrier()
        for _ in range(ctx.copies):
            w.copy()
        return w.copies_done

    with ThreadPoolExecutor(max_workers=ctx.threads, thread_name_prefix="xfer-pool") as pool:
        futures = [pool.submit(work, i) for i in range(ctx.threads)]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for f in done:
            f.result()  # re-raises a failed task's exception here: xferlab stops the others
        wait(futures)
