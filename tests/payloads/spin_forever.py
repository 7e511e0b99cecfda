"""Spins on a core forever and never copies, so xferlab.Stopped can never reach it: the run's
timeout ends the run and the thread is left behind, still taking a core from every later run
(tests/integration/test_cli_stray_threads.cpp)."""


def main(ctx):
    n = 0
    while True:
        n += 1
