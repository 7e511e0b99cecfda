"""Test payload: worker `params.victim` (default 1) raises ValueError on its thread after its first
copy; every other worker makes all its copies. Under python-subinterp the victim's interpreter
alone fails."""
import threading


def main(ctx):
    victim = int(ctx.params.get("victim", 1))

    def work(i):
        w = ctx.worker(i)
        ctx.barrier()
        for k in range(ctx.copies):
            w.copy()
            if w.index == victim and k == 0:
                raise ValueError(f"worker {victim} fails on purpose")

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-py-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
