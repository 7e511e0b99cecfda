"""CuPy's own copies, timed on the worker's thread next to xferlab's w.copy() (threads.py).

The shape of threads.py: one threading.Thread per worker, a start barrier, then warm-up and
measured copies. Each copy is one `with w.timed(ctx.bytes, label=...)` block: xferlab times the
block on the worker's thread and joins every CUDA memcpy it issues (CUPTI) to its record.

Parameters (the scenario's [params]; a table named after the run's label overrides them for
that run, see framework_support.run_params):
  api = "set"           h2d: dev.set(host)               d2h: dev.get(out=host)
        "asarray"       h2d: cupy.asarray(host), a new device array per copy
                        d2h: cupy.asnumpy(dev), a new host array per copy
        "memcpy"        cupy.cuda.runtime.memcpy on the arrays' pointers (synchronous)
        "xferlab"       xferlab.copy(dev, host) / xferlab.copy(host, dev): the Python module's
                        staging engine (docs/module.md); its
                        helpers' chunk DMAs join the block's record (CUPTI)
  direction = "h2d" | "d2h"
  synchronize = true    the stream is synchronized inside the timed block, so that the block
                        measures the bytes' arrival; false times only the call
  first_touch = "worker" | "main"   the thread that allocates and writes the host buffer
After the copies each worker checks its bytes (h2d on the device, d2h on the host) and reports
it with w.verified.
"""
import framework_support as support


def main(ctx):
    cupy = support.import_or_skip(ctx, "cupy", "CuPy")
    params = support.run_params(ctx)
    api = params.get("api", "set")
    direction = params.get("direction", "h2d")
    synchronize = bool(params.get("synchronize", True))
    if api not in ("set", "asarray", "memcpy", "xferlab") or direction not in ("h2d", "d2h"):
        raise ValueError(f"params api = {api!r}, direction = {direction!r}: expected api set, "
                         "asarray, memcpy or xferlab and direction h2d or d2h")
    # w.device is a worker's CUDA device, -1 on the host backend (the same for every worker).
    if ctx.worker(0).device < 0:
        ctx.skip("cupy_copy.py copies to a CUDA device; this run's backend has none")
    if api == "xferlab":
        import xferlab  # inside xferlab run: the embedded module, with the same copy()
    label = f"cupy {api} {direction}"
    hosts = {}
    if support.first_touch(params) == "main":
        hosts = {i: support.host_array(ctx.bytes, i) for i in range(ctx.threads)}

    def copy(dev, host):
        """One copy; returns the arrays that hold the bytes afterwards (device, host)."""
        if api == "set" and direction == "h2d":
            dev.set(host)
        elif api == "set":
            dev.get(out=host)
        elif api == "asarray" and direction == "h2d":
            dev = cupy.asarray(host)
        elif api == "asarray":
            host = cupy.asnumpy(dev)
        elif api == "xferlab" and direction == "h2d":
            xferlab.copy(dev, host)
        elif api == "xferlab":
            xferlab.copy(host, dev)
        elif direction == "h2d":
            cupy.cuda.runtime.memcpy(dev.data.ptr, host.ctypes.data, ctx.bytes,
                                     cupy.cuda.runtime.memcpyHostToDevice)
        else:
            cupy.cuda.runtime.memcpy(host.ctypes.data, dev.data.ptr, ctx.bytes,
                                     cupy.cuda.runtime.memcpyDeviceToHost)
        if synchronize:
            cupy.cuda.get_current_stream().synchronize()
        return dev, host

    def work(i):
        w = ctx.worker(i)
        with cupy.cuda.Device(w.device):
            host = hosts[i] if i in hosts else support.host_array(ctx.bytes, i)
            repeats = -(-ctx.bytes // support.PERIOD)
            expected = cupy.tile(cupy.asarray(support.pattern(i)), repeats)[:ctx.bytes]
            dev = cupy.empty(ctx.bytes, dtype=cupy.uint8)
            if direction == "d2h":
                dev[...] = expected
                host[...] = 0
            ctx.barrier()
            for _ in range(ctx.copies):
                with w.timed(ctx.bytes, label=label):
                    dev, host = copy(dev, host)
            cupy.cuda.get_current_stream().synchronize()
            if direction == "h2d":
                w.verified(bool(cupy.array_equal(dev, expected)),
                           "cupy.array_equal on the device")
            else:
                w.verified(bool((host == expected.get()).all()), "numpy comparison on the host")

    support.run_threads(ctx, work, "xfer-cupy")
