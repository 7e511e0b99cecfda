"""Test payload for launcher "process": worker `params.victim` kills its own process with SIGKILL,
after `params.after` copies (0: before the start barrier), `params.linger` seconds after its last
copy (default 0: at once; long enough, its records reach the parent in a batch first). The other
workers copy as usual."""
import os
import signal
import time


def main(ctx):
    victim = int(ctx.params.get("victim", 1))
    after = int(ctx.params.get("after", 1))
    linger = float(ctx.params.get("linger", 0))
    w = ctx.worker(0)
    if w.index == victim and after == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    w.barrier()
    for k in range(ctx.copies):
        if w.index == victim and k == after:
            time.sleep(linger)
            os.kill(os.getpid(), signal.SIGKILL)
        w.copy()
