"""Four threading.Threads, each copying its own pageable NumPy array to a device with CuPy's
ndarray.set, one device per thread round-robin (all on device 0 where there is one): the
seed's shape, as the seed authors' Python wrote it.

    xferlab watch -- python3 tests/watch_programs/cupy_set_threads.py [--first-touch main]
"""
import threading

from watch_common import Timer, arguments, report


def main():
    args = arguments(__doc__).parse_args()
    import cupy  # after the arguments: --help needs neither
    import numpy as np

    devices = cupy.cuda.runtime.getDeviceCount()
    n = args.bytes // 8
    # --first-touch main: every array made (and its pages touched) by the main thread.
    hosts = [np.ones(n) if args.first_touch == "main" else None for _ in range(args.threads)]
    targets = []
    for i in range(args.threads):
        with cupy.cuda.Device(i % devices):
            targets.append(cupy.empty(n))
    start = threading.Barrier(args.threads)

    def copy(i):
        host = hosts[i] if hosts[i] is not None else np.ones(n)
        with cupy.cuda.Device(i % devices):
            start.wait()
            with Timer() as t:
                for _ in range(args.copies):
                    targets[i].set(host)
                cupy.cuda.Device().synchronize()
        report(f"thread {i} (device {i % devices})", args.bytes * args.copies, t.seconds)

    threads = [threading.Thread(target=copy, args=(i,), name=f"copier-{i}")
               for i in range(args.threads)]
    with Timer() as t:
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    report("all threads", args.bytes * args.copies * args.threads, t.seconds)


if __name__ == "__main__":
    main()
