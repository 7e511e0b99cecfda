#!/usr/bin/env python3
"""The Python module's benchmark (issues #27, #45): a plain Python program, no `xferlab run`.

    PYTHONPATH=build/python python3 tests/bench/bench-module.py [--bytes 1GiB] [--trials 5]
        [--sections large,small,source,sweep,...] [--json FILE] [--old DIR] ...

Sections (tests/bench/bench_module/, one module each), each with trials interleaved (every method
once per trial, in a shuffled order) and nothing timed before a method's first copy:
  large      NumPy pageable -> CuPy and torch and back, 1 and 4 threads: xferlab.copy, CuPy's
             ndarray.set/get, torch's copy_, page-locked cudaMemcpy (the rate to reach)
  small      one thread, 4 KiB to 32 MiB: where staging starts to pay, the cost per call
  source     one caller: NumPy's buffer, an anonymous mapping without huge pages, a quarter size
  sweep      one caller, engine settings side by side (--sweep)
  sweep4     four callers sharing one engine per setting (--sweep4)
  sizes      one caller at several sizes (--sizes) per setting (--sizes-sweep)
  engines    issue #45's benchmark: this build's engine against another build's (--old), CuPy
             and torch, 1 and 4 callers, both ways
  cupy-path  why a CuPy destination was slower than a torch one: the same memory through six
             views, the engine's time apart from the caller's
  memmap     weights from a file: numpy.memmap warm and cold against read() into page-locked
             memory, CuPy and torch
  hostmem    the host-memory ceiling: what a memory-bound load loses per byte delivered
  limit      issue #58's model: the rate one and four callers can reach on this host, from the
             link's, the helpers' and the two together's rates measured here, beside the copy
Engine settings are key=value as Engine() takes them, ',' between options and ';' between
settings: --sweep "threads=12,chunk=1MiB;threads=8,dma=chunk,wait=block".
--old DIR: DIR holds a package xferlab_old (another build's python/xferlab, renamed), imported
beside this one. --smoke: the sections on the test build's fake device, with stand-ins for CuPy
and PyTorch (PYTHONPATH=build/python-testing): a check that the script runs, no measurement.
Prints a table per section; writes every trial's value as JSON after each section. A section
that fails prints its traceback and the others still run (exit status 1 then).
"""
import argparse
import importlib
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_module import common  # noqa: E402

SECTIONS = ["large", "small", "source", "sweep", "sweep4", "sizes", "engines", "cupy-path",
            "memmap", "hostmem", "limit"]


class Context:
    """What every section reads: the modules, the size, the trials, the arguments."""

    def __init__(self, args, xferlab, old, cupy, torch):
        self.args = args
        self.xferlab, self.old, self.cupy, self.torch = xferlab, old, cupy, torch
        self.n = common.parse_size(args.bytes)
        self.trials = args.trials
        self.copies = args.copies
        self.memcpy = common.Memcpy(cupy)


def run_section(name, ctx, results):
    a = ctx.args
    if name == "sweep":
        from bench_module import sweeps
        sweeps.run_sweep(ctx, results, common.parse_settings(a.sweep))
    elif name == "sweep4":
        from bench_module import sweeps
        sweeps.run_sweep4(ctx, results, common.parse_settings(a.sweep4) or
                          common.parse_settings("threads=12"))
    elif name == "sizes":
        from bench_module import sweeps
        sweeps.run_sizes(ctx, results, [common.parse_size(x) for x in a.sizes.split(",")],
                         common.parse_settings(a.sizes_sweep))
    else:
        importlib.import_module(f"bench_module.{name.replace('-', '_')}").run(ctx, results)


def load_modules(args):
    if args.smoke:
        from bench_module import fake_frameworks
        fake_frameworks.install()
    try:
        import cupy
        import torch
    except ImportError as e:  # the benchmark compares against both frameworks
        sys.exit(f"bench-module.py needs CuPy and PyTorch: {e}")
    import xferlab
    old = None
    if args.old:
        sys.path.insert(0, args.old)
        # The other build's shared engine in a registry of its own: made at its first copy.
        old = importlib.import_module("xferlab_old")
    return xferlab, old, cupy, torch


def warm_shared_engines(ctx):
    """Each module's shared engine, made now in an engine registry of its own, so that neither
    takes a share of the CPUs from the other (or from the sections' own engines)."""
    import numpy as np
    host = np.zeros(16 << 20, dtype=np.uint8)
    dev = ctx.cupy.empty(host.size, dtype=ctx.cupy.uint8)
    for name, module in (("new", ctx.xferlab), ("old", ctx.old)):
        if module is not None:
            with common.own_registry(f"shared-{name}"):
                module.copy(dev, host)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bytes", default="1GiB")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--copies", type=int, default=3, help="copies per thread and measurement")
    p.add_argument("--json", help="write every value here")
    p.add_argument("--sections", default="large,small,source,sweep",
                   help="comma-separated, in order: " + ", ".join(SECTIONS))
    p.add_argument("--skip", nargs="*", default=[], choices=SECTIONS,
                   help="sections left out of --sections")
    p.add_argument("--sweep", default="", metavar="SETTINGS",
                   help="the sweep section's settings (default: threads 4/8/12 x chunk 1/2 MiB)")
    p.add_argument("--sweep4", default="", metavar="SETTINGS",
                   help="settings for four callers sharing one engine (section sweep4)")
    p.add_argument("--sizes", default="256MiB,1GiB,2GiB", metavar="SIZE,...",
                   help="section sizes: one caller at these sizes")
    p.add_argument("--sizes-sweep", default="threads=12", metavar="SETTINGS",
                   help="the settings section sizes compares")
    p.add_argument("--old", metavar="DIR", help="a folder holding the package xferlab_old")
    p.add_argument("--memmap-dir", help="where section memmap writes its file (default $TMPDIR)")
    p.add_argument("--memmap-helpers", type=int, default=12,
                   help="section memmap's engines of a fixed helper count (default 12)")
    p.add_argument("--hostmem-trials", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="run on the fake device (no GPU)")
    a = p.parse_args()
    ctx = Context(a, *load_modules(a))
    results = {"bytes": ctx.n, "trials": a.trials, "copies": a.copies,
               "xferlab": ctx.xferlab.__version__, "old": a.old,
               "cupy": ctx.cupy.__version__, "torch": ctx.torch.__version__,
               "device": ctx.cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    warm_shared_engines(ctx)
    with common.own_registry("defaults"), ctx.xferlab.Engine(device=0) as e:  # as shared
        results["engine"] = e.stats()
    print(f"xferlab {ctx.xferlab.__version__} on {results['device']}; CuPy "
          f"{ctx.cupy.__version__}, PyTorch {ctx.torch.__version__}")
    print(f"shared engine: {results['engine']['note']}")
    failed = []
    for name in [s for s in a.sections.split(",") if s and s not in a.skip]:
        if name not in SECTIONS:
            sys.exit(f"bench-module: no section {name}; sections: {', '.join(SECTIONS)}")
        try:
            run_section(name, ctx, results)
        except Exception:  # noqa: BLE001 - the other sections still run
            traceback.print_exc()
            failed.append(name)
            results.setdefault("failed", {})[name] = traceback.format_exc()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(results, f, indent=1, default=str)
        sys.stdout.flush()
    common.remove_registries()
    if failed:
        print(f"bench-module: sections that failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
