"""Never returns and never copies, so xferlab.Stopped can never reach it: only the run's timeout
ends the run, and the thread is left behind (tests/integration/test_cli_faults.cpp)."""
import time


def main(ctx):
    while True:
        time.sleep(0.05)
