"""Each worker thread changes its own environment before copying, from ctx.params. Which of a
Python thread's attributes matters is then one scenario key away. All keys are optional:

  stack_size      = 262144            threading.stack_size(bytes) before the threads start
                                      (process-wide in Python; xferlab restores it after the run)
  block_signals   = ["SIGINT", ...]   each worker blocks these (signal.pthread_sigmask)
  unblock_signals = ["SIGUSR1", ...]  each worker unblocks these
  cpus            = [0, 1]            worker i pins itself to cpus[i % len] (os.sched_setaffinity)
  switch_interval = 0.005             sys.setswitchinterval(seconds) (process-wide; restored)

A worker enters (its ThreadInfo is captured) after it changed itself, so results.json shows
what each worker actually got.
"""
import os
import signal
import sys
import threading


def _signals(names):
    return {getattr(signal, name) for name in names}


def main(ctx):
    p = ctx.params
    stack_size = int(p.get("stack_size", 0))
    if stack_size:
        threading.stack_size(stack_size)
    if "switch_interval" in p:
        sys.setswitchinterval(float(p["switch_interval"]))
    block = _signals(p.get("block_signals", []))
    unblock = _signals(p.get("unblock_signals", []))
    cpus = [int(c) for c in p.get("cpus", [])]

    def work(i):
        if block:
            signal.pthread_sigmask(signal.SIG_BLOCK, block)
        if unblock:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, unblock)
        if cpus:
            os.sched_setaffinity(0, {cpus[i % len(cpus)]})
        w = ctx.worker(i)
        w.enter()  # ThreadInfo now: after the changes above
        w.barrier()
        for _ in range(ctx.copies):
            w.copy()

    threads = [threading.Thread(target=work, args=(i,), name=f"xfer-env-{i}")
               for i in range(ctx.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
