#!/usr/bin/env python3
"""Sends SIGINT, SIGTERM or SIGKILL to `xferlab run` at random moments (0 to 6 s) of a plan of ten short runs
and checks what is left on disk (the numbers in docs/reliability.md come from this).

usage: signal_stress.py XFERLAB SIGNAL TRIALS [--launcher host|python] [--seed N]

Invariants checked after every trial:
  SIGINT/SIGTERM  exit 130 (or 0 when the plan finished first); results.json parses, says
                  "complete": true and "interrupted" as the exit code does; it holds exactly the
                  journal's runs; every run but the last is "ok".
  SIGKILL         exit 137 (or 0 as above); the journal's lines all parse except possibly a cut last one;
                  results.json, when there, parses and holds a prefix of the journal's runs.
A signal that lands before xferlab installed its handlers (during start-up) ends it the
default way; such trials are counted apart ("early").
"""
import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

SCENARIO = """[scenario]
name = "stress"
backend = "host"
[transfer]
bytes = "16MiB"
repetitions = 20
warmup = 1
[threads]
count = 2
[[run]]
launcher = "{launcher}"
{payload}
[sweep]
"transfer.repetitions" = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109]
"""


def journal_runs(path):
    """(parsed runs, whether the last line was cut short)."""
    if not os.path.exists(path):
        return [], False
    lines = [l for l in open(path).read().split("\n") if l]
    runs, cut = [], False
    for i, line in enumerate(lines):
        try:
            runs.append(json.loads(line))
        except ValueError:
            if i == len(lines) - 1:
                cut = True
            else:
                raise AssertionError("journal line %d does not parse" % (i + 1))
    return runs, cut


def trial(xferlab, sig, launcher, rng, work):
    out = os.path.join(work, "out")
    payload = 'payload = "threads.py"' if launcher == "python" else ""
    scenario = os.path.join(work, "s.toml")
    with open(scenario, "w") as f:
        f.write(SCENARIO.format(launcher=launcher, payload=payload))
    p = subprocess.Popen([xferlab, "run", scenario, "--quiet", "--out", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(rng.uniform(0.0, 6.0))
    p.send_signal(sig)
    _, err = p.communicate()
    code = p.returncode if p.returncode >= 0 else 128 - p.returncode
    runs, cut = journal_runs(os.path.join(out, "journal.jsonl"))
    results_path = os.path.join(out, "results.json")
    results = json.load(open(results_path)) if os.path.exists(results_path) else None
    if sig == signal.SIGKILL and code != 0:
        assert code == 137, code
        if results is not None:
            n = len(results["runs"])
            assert n <= len(runs) + (1 if cut else 0), (n, len(runs))
            assert [r["index"] for r in results["runs"]] == [r["index"] for r in runs[:n]]
            assert results["complete"] is False or n == 10
        return "killed, %d run(s) on disk%s" % (len(runs), ", last journal line cut" if cut else "")
    if code == 0:
        assert results["complete"] and not results["interrupted"] and len(results["runs"]) == 10
        return "finished before the signal"
    if code in (130, 143) and results is None and not os.path.exists(out):
        return "early"  # before the handlers were installed, or before the output folder
    assert code == 130, (code, err[-400:])
    assert results is not None, "no results.json"
    assert results["complete"] and results["interrupted"]
    assert len(results["runs"]) == len(runs), (len(results["runs"]), len(runs))
    statuses = [r["status"] for r in results["runs"]]
    assert all(s == "ok" for s in statuses[:-1]), statuses
    return "interrupted, last run %s" % (statuses[-1] if statuses else "none")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xferlab")
    ap.add_argument("signal", choices=["SIGINT", "SIGTERM", "SIGKILL"])
    ap.add_argument("trials", type=int)
    ap.add_argument("--launcher", default="host", choices=["host", "python"])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    outcomes = collections.Counter()
    failures = 0
    for _ in range(a.trials):
        with tempfile.TemporaryDirectory(prefix="xferlab-stress-") as work:
            try:
                outcome = trial(a.xferlab, getattr(signal, a.signal), a.launcher, rng, work)
            except AssertionError as e:
                failures += 1
                outcome = "FAILED: %s" % e
        outcomes[outcome] += 1
    for k, v in sorted(outcomes.items()):
        print("%4d  %s" % (v, k))
    print("%s x%d (%s launcher): %d failed" % (a.signal, a.trials, a.launcher, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
