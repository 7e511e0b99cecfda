"""One process per copy: a multiprocessing program whose (spawned) processes each copy one
pageable NumPy array to a device with CuPy, all released at once.

    xferlab watch -- python3 tests/watch_programs/multiprocessing_copies.py
"""
import multiprocessing

from watch_common import Timer, arguments, report


def copy_one(i, nbytes, start):
    import cupy
    import numpy as np

    device = i % cupy.cuda.runtime.getDeviceCount()
    with cupy.cuda.Device(device):
        host = np.ones(nbytes // 8)
        target = cupy.empty(nbytes // 8)
        cupy.zeros(1)  # the context ready before the timed copy
        start.wait()
        with Timer() as t:
            target.set(host)
            cupy.cuda.Device().synchronize()
    report(f"process {i} (device {device})", nbytes, t.seconds)


def main():
    args = arguments(__doc__, threads=4, copies=1).parse_args()
    ctx = multiprocessing.get_context("spawn")  # CUDA cannot be used in a forked child
    start = ctx.Barrier(args.threads * args.copies)
    processes = [ctx.Process(target=copy_one, args=(i, args.bytes, start), name=f"copy-{i}")
                 for i in range(args.threads * args.copies)]
    with Timer() as t:
        for p in processes:
            p.start()
        for p in processes:
            p.join()
    report("all processes", args.bytes * len(processes), t.seconds)
    raise SystemExit(max(p.exitcode for p in processes))


if __name__ == "__main__":
    main()
