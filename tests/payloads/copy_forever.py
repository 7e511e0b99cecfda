"""Copies until xferlab stops it; after its first copy creates ctx.params["ready_file"], so that
a test sends its signal while copies are certainly running (tests/integration/test_cli_signals.cpp).
Under launcher "process" each worker process runs this: "{worker}" in the name is its index."""
import xferlab


def main(ctx):
    w = ctx.worker(0)
    w.copy()
    open(ctx.params["ready_file"].replace("{worker}", str(w.index)), "w").close()
    try:
        while True:
            w.copy()
    except xferlab.Stopped:
        pass  # the stop xferlab asked for: the run ends normally, its records kept
