"""What the four programs share: their arguments and the line each prints about itself."""
import argparse
import time


def size(text):
    """'1GiB', '64MiB', '4096' -> bytes (argparse names the option when it raises)."""
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "B": 1}
    for unit, factor in units.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


size.__name__ = "size"


def arguments(description, threads=4, copies=3, nbytes="1GiB"):
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=threads, help="threads (or processes)")
    p.add_argument("--copies", type=int, default=copies, help="copies per thread")
    p.add_argument("--bytes", type=size, default=size(nbytes), help="bytes per copy")
    p.add_argument("--first-touch", choices=["main", "thread"], default="thread",
                   help="who first touches each host array: the main thread or its copying "
                        "thread")
    return p


def report(what, nbytes, seconds):
    rate = nbytes / seconds / 1e9 if seconds > 0 else 0.0
    print(f"{what}: {nbytes / (1 << 30):.2f} GiB in {seconds:.3f} s, {rate:.2f} GB/s", flush=True)


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
