#!/usr/bin/env python3
"""Checks that app/'s folders depend on each other one way only: a file may include headers of
its own folder and of folders below it in LAYERS, never of a folder above it. Prints every
include that breaks the order, and the edges that exist, for docs/architecture.md.
  tools/check-layers.py [--edges]      exit 1 when an include goes upward
"""
import pathlib
import re
import sys

# Lowest first. A subfolder (backend/cuda, engine/cuda, engine/fake, module/ext,
# module/testing) is part of its folder, except in the folders of LAYERED, whose subfolders are
# layers of their own (report/analysis, report/explain, report/render) and which hold no file
# outside them. The Python module is module/ and the folders below it: engine is the floor the
# harness's CUDA backend stands on, and nothing of the harness is below it. memory and backend
# read a run's settings as specs (settings/specs.hpp), not as a scenario, so scenario is above
# them; launch is handed a scenario's Run, so scenario is below launch. Within report, the
# statistics (analysis) are below the findings that cite them (explain), and both below the
# reporters (render).
LAYERS = ["util", "system", "settings", "engine", "module", "results", "watch", "memory", "backend",
          "scenario", "report/analysis", "report/explain", "report/render", "launch", "embed",
          "remote", "run", "cli"]
LAYERED = {"report"}

def folder_of(path: str) -> str:
    """The layer of a file's path under app/ (e.g. "backend/cuda/x.cpp" -> "backend",
    "report/render/x.cpp" -> "report/render")."""
    parts = path.split("/")
    if parts[0] in LAYERED and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]

def main() -> int:
    app = pathlib.Path(__file__).resolve().parent.parent / "app"
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad, edges = [], set()
    for f in sorted(app.rglob("*")):
        if f.suffix not in (".cpp", ".hpp") or f.name == "main.cpp":
            continue
        mine = folder_of(str(f.relative_to(app)))
        if mine not in rank:
            bad.append(f"{f.relative_to(app)}: folder '{mine}' is not in LAYERS")
            continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([a-z_]+(?:/[a-z_]+)*/[\w.]+)"', line)
            if not m:
                continue
            theirs = folder_of(m.group(1))
            if theirs == mine or theirs not in rank:
                continue
            edges.add((mine, theirs))
            if rank[theirs] > rank[mine]:
                bad.append(f"app/{f.relative_to(app)}:{n}: {mine} includes {theirs} (above it)")
    if "--edges" in sys.argv:
        width = max(len(a) for a in LAYERS)
        for a in LAYERS:
            below = sorted({b for (x, b) in edges if x == a}, key=rank.get)
            print(f"{a:{width}} -> {', '.join(below) if below else '(nothing)'}")
    for b in bad:
        print(b)
    print(f"check-layers: {len(edges)} folder edges, {len(bad)} upward")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
