"""cupy_set_threads.py with xferlab.copy in place of ndarray.set: four threading.Threads, each
copying its own pageable NumPy array to a device through the staging engine.

    xferlab watch -- python3 tests/watch_programs/xferlab_copy_threads.py
"""
import threading

from watch_common import Timer, arguments, report


def main():
    args = arguments(__doc__).parse_args()
    import cupy  # after the arguments: --help needs neither
    import numpy as np
    import xferlab

    devices = cupy.cuda.runtime.getDeviceCount()
    n = args.bytes // 8
    hosts = [np.ones(n) if args.first_touch == "main" else None for _ in range(args.threads)]
    targets = []
    for i in range(args.threads):
        with cupy.cuda.Device(i % devices):
            targets.append(cupy.empty(n))
    start = threading.Barrier(args.threads)

    def copy(i):
        host = hosts[i] if hosts[i] is not None else np.ones(n)
        start.wait()
        with Timer() as t:
            for _ in range(args.copies):
                xferlab.copy(targets[i], host)  # returns when the bytes are there
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
