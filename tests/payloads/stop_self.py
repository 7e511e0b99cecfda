"""For launcher "process": after its first copy, each worker process creates params.ready_file
("{worker}": its index) and stops itself with SIGSTOP, once, or again each time it is continued
when params.forever is true; then it copies until xferlab stops it. A stop of xferlab must still
end the run (tests/integration/test_cli_wedged_workers.cpp)."""
import os
import signal

import xferlab


def main(ctx):
    w = ctx.worker(0)
    w.copy()
    open(ctx.params["ready_file"].replace("{worker}", str(w.index)), "w").close()
    while True:
        os.kill(os.getpid(), signal.SIGSTOP)
        if not ctx.params.get("forever", False):
            break
    try:
        while True:
            w.copy()
    except xferlab.Stopped:
        pass
