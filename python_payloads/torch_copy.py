"""PyTorch's own copies, timed on the worker's thread next to xferlab's w.copy() (threads.py).

The shape of threads.py: one threading.Thread per worker, a start barrier, then warm-up and
measured copies. Each copy is one `with w.timed(ctx.bytes, label=...)` block: xferlab times the
block on the worker's thread and joins every CUDA memcpy it issues (CUPTI) to its record.

Parameters (the scenario's [params]; a table named after the run's label overrides them for
that run, see framework_support.run_params):
  api = "copy_"         h2d: dev.copy_(src)             d2h: host.copy_(dev)
        "to"            h2d: src.to(device), a new tensor per copy
                        d2h: dev.to("cpu"), a new tensor per copy (pinned = true: pinned)
        "xferlab"       xferlab.copy(dev, host) / xferlab.copy(host, dev): the Python module's
                        staging engine (a pinned host tensor is copied in place, unstaged)
  pinned = false        the host tensor is page-locked (Tensor.pin_memory()) or pageable
  non_blocking = false  passed to copy_ / to
  direction = "h2d" | "d2h"
  synchronize = true    torch.cuda.synchronize inside the timed block when non_blocking, so
                        that the block measures the bytes' arrival; false times only the call
  first_touch = "worker" | "main"   the thread that allocates and writes the host buffer
After the copies each worker checks its bytes (h2d on the device, d2h on the host) and reports
it with w.verified.
"""
import framework_support as support


def main(ctx):
    torch = support.import_or_skip(ctx, "torch", "PyTorch")
    if not torch.cuda.is_available():
        ctx.skip(f"PyTorch {torch.__version__} sees no CUDA device "
                 "(torch.cuda.is_available() is False): see docs/payload-api.md#which-python")
    params = support.run_params(ctx)
    api = params.get("api", "copy_")
    direction = params.get("direction", "h2d")
    pinned = bool(params.get("pinned", False))
    non_blocking = bool(params.get("non_blocking", False))
    synchronize = non_blocking and bool(params.get("synchronize", True))
    if api not in ("copy_", "to", "xferlab") or direction not in ("h2d", "d2h"):
        raise ValueError(f"params api = {api!r}, direction = {direction!r}: expected api copy_, "
                         "to or xferlab and direction h2d or d2h")
    # w.device is a worker's CUDA device, -1 on the host backend (the same for every worker).
    if ctx.worker(0).device < 0:
        ctx.skip("torch_copy.py copies to a CUDA device; this run's backend has none")
    if api == "xferlab":
        import xferlab  # inside xferlab run: the embedded module, with the same copy()
    label = (f"torch {api} {direction} {'pinned' if pinned else 'pageable'}"
             f"{' non_blocking' if non_blocking else ''}")

    def host_tensor(i):
        """The worker's host tensor: NumPy's pageable buffer, or a page-locked copy of it."""
        host = torch.from_numpy(support.host_array(ctx.bytes, i))
        return host.pin_memory() if pinned else host

    hosts = {}
    if support.first_touch(params) == "main":
        hosts = {i: host_tensor(i) for i in range(ctx.threads)}

    def copy(dev, host, device):
        """One copy; returns the tensors that hold the bytes afterwards (device, host)."""
        if api == "copy_" and direction == "h2d":
            dev.copy_(host, non_blocking=non_blocking)
        elif api == "copy_":
            host.copy_(dev, non_blocking=non_blocking)
        elif api == "xferlab" and direction == "h2d":
            xferlab.copy(dev, host)
        elif api == "xferlab":
            xferlab.copy(host, dev)
        elif direction == "h2d":
            dev = host.to(device, non_blocking=non_blocking)
        else:
            host = dev.to("cpu", non_blocking=non_blocking)
        if synchronize:
            torch.cuda.synchronize(device)
        return dev, host

    def work(i):
        w = ctx.worker(i)
        device = torch.device("cuda", w.device)
        torch.cuda.set_device(device)
        host = hosts[i] if i in hosts else host_tensor(i)
        repeats = -(-ctx.bytes // support.PERIOD)
        expected = torch.from_numpy(support.pattern(i)).to(device).repeat(repeats)[:ctx.bytes]
        dev = torch.empty(ctx.bytes, dtype=torch.uint8, device=device)
        if direction == "d2h":
            dev.copy_(expected)
            host.zero_()
        torch.cuda.synchronize(device)
        ctx.barrier()
        for _ in range(ctx.copies):
            with w.timed(ctx.bytes, label=label):
                dev, host = copy(dev, host, device)
        torch.cuda.synchronize(device)
        if direction == "h2d":
            w.verified(bool(torch.equal(dev, expected)), "torch.equal on the device")
        else:
            w.verified(bool(torch.equal(host, expected.cpu())), "torch.equal on the host")

    support.run_threads(ctx, work, "xfer-torch")
