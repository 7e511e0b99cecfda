"""Leaves work behind that nobody names, then returns at once (tests/integration/
test_cli_stray_threads.cpp): params.kind "thread" spins on a thread from _thread.start_new_thread
(never in threading's list), "fork" spins in a forked child process, "idle" sleeps on such a
thread. Each ends by itself after params.seconds."""
import _thread
import os
import time


def spin(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1


def main(ctx):
    kind = ctx.params["kind"]
    seconds = float(ctx.params.get("seconds", 3))
    ctx.worker(0).copy()
    if kind == "thread":
        _thread.start_new_thread(spin, (seconds,))
    elif kind == "idle":
        _thread.start_new_thread(time.sleep, (seconds,))
    elif kind == "fork":
        if os.fork() == 0:
            spin(seconds)
            os._exit(0)
