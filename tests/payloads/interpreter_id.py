"""Test payload for launchers python, python-ft and python-subinterp: notes which interpreter ran
main(ctx) and for which workers ("interpreter 3 (main False, gil True, free-threaded False):
workers [2]"), then each worker copies on a thread of its own as threads.py does."""
import threading

import xferlab


def main(ctx):
    info = xferlab.interpreter()
    workers = [ctx.worker(i).index for i in range(ctx.threads)]
    ctx.note(f"interpreter {info['id']} (main {info['main']}, gil {info['gil']}, "
             f"free-threaded {info['free_threaded']}): workers {workers}")

    def work(i):
        w = ctx.worker(i)
        ctx.barrier()
        for _ in range(ctx.copies):
            w.copy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
