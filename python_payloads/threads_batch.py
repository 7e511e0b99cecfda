"""threads.py with every copy in one native call: one threading.Thread per worker, a start
barrier, then w.copy(count=n). Nothing runs in Python between two copies, so the gap between
them is the native loop's (threads.between applies there). A scenario's [[run]] cannot set
[params], hence this file rather than params.batch = true.
"""
import threading


def main(ctx):
    def work(i):
        w = ctx.worker(i)
        ctx.barrier()
        w.copy(count=ctx.copies)

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-py-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
