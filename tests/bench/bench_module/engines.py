"""Section engines, the benchmark of issue #45: 1 GiB of pageable NumPy memory to and from a CuPy
array and a torch tensor, 1 and 4 callers (each its own buffers), interleaved trials, against
cudaMemcpy from page-locked memory in the same trial:
  new        xferlab.copy of this build (the engine as the module ships it)
  old        xferlab.copy of another build (--old: main's, imported as the package xferlab_old)
Every engine takes part in an engine registry of its own, so none takes CPUs from another
while idle engines sit beside it. Summary: x pinned per method, and new against old paired by
trial (in how many trials new was faster)."""
import statistics

from .common import band
from .large import print_summary, run_methods, summarize


def methods(ctx):
    out = {"pinned": ctx.memcpy.pinned_fns()}

    def via(copy):
        return {"cupy": (lambda b: copy(b.cupy, b.pageable), lambda b: copy(b.pageable, b.cupy)),
                "torch": (lambda b: copy(b.torch, b.pageable),
                          lambda b: copy(b.pageable, b.torch))}

    for frame, fns in via(ctx.xferlab.copy).items():
        out[f"new -> {frame}"] = fns
    if ctx.old is not None:
        for frame, fns in via(ctx.old.copy).items():
            out[f"old -> {frame}"] = fns
    return out


def run(ctx, results):
    rows = run_methods(ctx, methods(ctx), "engines", seed=4500)
    results["engines"] = rows
    results["engines_summary"] = summarize(rows, reference="pinned")
    print_summary(results["engines_summary"], ctx.trials, "the engine as shipped (issue #45)")
    results["engines_paired"] = print_paired(rows, ctx.trials)


def print_paired(rows, trials):
    """New against old, paired by trial."""
    out = []
    print(f"\n== paired by trial ({trials} trials): median ratio (min-max), and in how many "
          "trials the first was faster")
    for threads in (1, 4):
        for direction in ("h2d", "d2h"):
            for frame in ("cupy", "torch"):
                def gb(method):
                    return {r["trial"]: r["GBps"] for r in rows
                            if (r["threads"], r["direction"], r["method"]) ==
                            (threads, direction, f"{method} -> {frame}")}
                for first, second in (("new", "old"),):
                    a, b = gb(first), gb(second)
                    if not a or not b:
                        continue
                    ratio = [a[t] / b[t] for t in sorted(a) if t in b]
                    wins = sum(a[t] > b[t] for t in a if t in b)
                    print(f"  {threads} caller{'s' if threads > 1 else ' '} {direction} {frame:<6}"
                          f" {first}/{second}: {band(ratio)}, {wins} of {len(ratio)}")
                    out.append({"threads": threads, "direction": direction, "frame": frame,
                                "pair": f"{first}/{second}", "ratios": ratio, "wins": wins,
                                "median": statistics.median(ratio)})
    return out
