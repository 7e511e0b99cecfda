"""Section large: NumPy pageable -> CuPy array and torch tensor and back, 1 and 4 threads, each
thread its own buffers; aggregate GB/s of xferlab.copy, CuPy ndarray.set/get, torch copy_, and
cudaMemcpy from page-locked memory in the same process (the rate to reach)."""
import random
import statistics

from .common import Buffers, progress, timed_threads


def methods(ctx):
    """name -> (h2d(b), d2h(b)): one copy of one thread's buffers, returning when done."""
    cupy, torch, xferlab = ctx.cupy, ctx.torch, ctx.xferlab

    def sync():
        cupy.cuda.get_current_stream().synchronize()

    return {
        "cudaMemcpy page-locked": ctx.memcpy.pinned_fns(),
        "xferlab.copy -> cupy": (lambda b: xferlab.copy(b.cupy, b.pageable),
                                 lambda b: xferlab.copy(b.pageable, b.cupy)),
        "xferlab.copy -> torch": (lambda b: xferlab.copy(b.torch, b.pageable),
                                  lambda b: xferlab.copy(b.pageable, b.torch)),
        "cupy ndarray.set/get": (lambda b: (b.cupy.set(b.pageable), sync()),
                                 lambda b: (b.cupy.get(out=b.pageable), sync())),
        "torch copy_": (lambda b: (b.torch.copy_(b.host_tensor), torch.cuda.synchronize()),
                        lambda b: (b.host_tensor.copy_(b.torch), torch.cuda.synchronize())),
    }


def run(ctx, results):
    rows = run_methods(ctx, methods(ctx), "large", seed=0)
    results["large"] = rows
    results["large_summary"] = summarize(rows)
    print_summary(results["large_summary"], ctx.trials)


def run_methods(ctx, fns, section, seed):
    """Every method (name -> (h2d(b), d2h(b))) with 1 and 4 threads, each its own buffers, both
    ways, in a shuffled order per trial; returns a row per trial, threads, way and method. The
    bytes are checked at the end."""
    n, trials, copies = ctx.n, ctx.trials, ctx.copies
    pool = [Buffers(ctx.cupy, ctx.torch, n, s + 1 + seed % 200) for s in range(4)]
    rows = []
    for threads in (1, 4):
        for pair in fns.values():  # warm-up: the first copy after allocation
            for fn in pair:
                timed_threads(fn, pool[:threads], 1)
    for trial in range(trials):
        order = [(t, d, m) for t in (1, 4) for d in ("h2d", "d2h") for m in fns]
        random.Random(seed + trial).shuffle(order)
        for threads, direction, name in order:
            fn = fns[name][0 if direction == "h2d" else 1]
            took = timed_threads(fn, pool[:threads], copies)
            rows.append({"trial": trial, "threads": threads, "direction": direction,
                         "method": name, "bytes": n, "copies": copies, "seconds": took,
                         "GBps": threads * copies * n / took / 1e9})
        progress(section, trial, trials)
    for b in pool:  # the bytes arrived both ways: the last copies were of the same pattern
        assert b.cupy[:16].get().tolist() == [b.pageable[0]] * 16
        assert int(b.torch[-1].item()) == int(b.pageable[-1])
    return rows


def summarize(rows, reference="cudaMemcpy page-locked"):
    """Per threads, direction and method: GB/s and x the reference of the same trial."""
    out = []
    for threads in sorted({r["threads"] for r in rows}):
        for direction in ("h2d", "d2h"):
            sel = [r for r in rows if (r["threads"], r["direction"]) == (threads, direction)]
            pinned = {r["trial"]: r["GBps"] for r in sel if r["method"] == reference}
            for method in dict.fromkeys(r["method"] for r in sel):
                vals = {r["trial"]: r["GBps"] for r in sel if r["method"] == method}
                ratios = [vals[t] / pinned[t] for t in sorted(vals)]
                gb = list(vals.values())
                out.append({
                    "threads": threads, "direction": direction, "method": method,
                    "GBps_median": statistics.median(gb), "GBps_min": min(gb),
                    "GBps_max": max(gb),
                    "cv": statistics.pstdev(gb) / statistics.mean(gb),
                    "x_pinned_median": statistics.median(ratios),
                    "x_pinned_min": min(ratios), "x_pinned_max": max(ratios),
                    "trials": len(gb)})
    return out


def print_summary(summary, trials, title="large copies"):
    print(f"\n== {title}: aggregate GB/s, median of {trials} interleaved trials (min-max), and x "
          "the page-locked cudaMemcpy of the same trial")
    print(f"{'threads':>7} {'dir':>4} {'method':<28} {'GB/s':>7} {'(min-max)':>15} "
          f"{'x pinned':>9} {'(min-max)':>13} {'CV':>6}")
    for s in summary:
        print(f"{s['threads']:>7} {s['direction']:>4} {s['method']:<28} {s['GBps_median']:7.1f} "
              f"({s['GBps_min']:6.1f}-{s['GBps_max']:5.1f}) {s['x_pinned_median']:9.3f} "
              f"({s['x_pinned_min']:.3f}-{s['x_pinned_max']:.3f}) {100 * s['cv']:5.1f}%")
