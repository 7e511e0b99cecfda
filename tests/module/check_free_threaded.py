"""xferlab._core under free-threaded CPython (3.13t), built by the xferlab-ft sibling: importing
it must leave the GIL off (the module declares it needs none; an undeclared extension turns the
GIL back on at import, with a RuntimeWarning), and copies from several threads at once must
arrive whole while the GIL stays off. Run by ctest as python/module_free_threaded with the
sibling's python/ folder as its argument; no NumPy there (3.13t has none here): host memory as
bytearrays. Exits non-zero, saying what, on any failure."""
import sys
import threading
import warnings


def main(package_dir):
    if not hasattr(sys, "_is_gil_enabled") or sys._is_gil_enabled():
        sys.exit(f"{sys.executable} is not free-threaded with its GIL off at start")
    sys.path.insert(0, package_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the GIL's return at import is a RuntimeWarning
        import xferlab
    if sys._is_gil_enabled():
        sys.exit("importing xferlab turned the GIL back on")

    n, threads, rounds = (3 << 20) + 17, 4, 20
    sources = [bytearray((i * 7 + k) % 251 for k in range(256)) * (n // 256) + bytes(n % 256)
               for i in range(threads)]
    targets = [bytearray(n) for _ in range(threads)]
    errors = []

    def work(i):
        try:
            for _ in range(rounds):
                xferlab.copy(targets[i], sources[i])  # host to host: no device needed
        except Exception as e:  # reported below: a thread's exception is not the test's
            errors.append(f"thread {i}: {e!r}")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        sys.exit("; ".join(errors))
    for i in range(threads):
        if targets[i] != sources[i]:
            sys.exit(f"thread {i}: the bytes did not arrive")
    if sys._is_gil_enabled():
        sys.exit("the GIL was on after the copies")
    print(f"xferlab {xferlab.__version__} in {sys.version.split()[0]} free-threaded: imported "
          f"with the GIL off; {threads} threads x {rounds} copies of {n} bytes arrived, GIL off")


if __name__ == "__main__":
    main(sys.argv[1])
