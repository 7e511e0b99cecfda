"""The gap stages and gap counters lines of --full, derived from the raw records alone
(audit_gap_lines.py), against the report xferlab printed: for every committed results file
whose runs took their gaps apart (docs/results/*gap*/), and for a hand-made run whose figures
tests/unit/test_report_gap_stages.cpp states too."""
import glob
import json
import lzma
import os
import re
import unittest

from audit_gap_lines import gap_lines, printed_gap_lines

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sections(report_text):
    """{run index: the lines of its 'Run N:' section}."""
    out, current = {}, None
    for line in report_text.splitlines():
        m = re.match(r"Run (\d+): ", line)
        if m:
            current = out.setdefault(int(m.group(1)), [])
        elif not line.strip():
            current = None
        elif current is not None:
            current.append(line)
    return out


def copy_at(start, previous_end, attached=None, python=None, entry=None):
    gap = {}
    for key, after in (("attached_ns", attached), ("python_ns", python), ("entry_ns", entry)):
        if after is not None:
            gap[key] = previous_end + after
    r = {"worker": 0, "host_start_ns": start, "host_end_ns": start + 1000, "warmup": False}
    if gap:
        r["gap"] = gap
    return r


class HandMade(unittest.TestCase):
    def test_stages_as_the_unit_test_states_them(self):
        records = [copy_at(0, 0, 5, 6, 7)]
        records[0]["warmup"] = True
        end = 1000
        for k in range(1, 4):
            start = end + 10_000
            records.append(copy_at(start, end, 1000 * k, 1000 * k + 2000, 1000 * k + 3000))
            end = start + 1000
        self.assertEqual(gap_lines({"records": records}), [
            "gap stages over 3 gaps, p50 (p90): return to attached 2 us (2.8 us); attached to "
            "python 2 us (2 us); python to entry 1 us (1 us); entry to start 5 us (5.8 us)"])

    def test_counters_as_the_unit_test_states_them(self):
        records, end = [], 0
        for k in range(5):
            r = copy_at(end + 5000, end)
            end = r["host_end_ns"]
            if k == 0:
                r["gap"] = {"counters": {"involuntary_switches": 9}}
            else:
                r["gap"] = {"counters": {"on_cpu_ns": 1000 * k,
                                         "involuntary_switches": 1 if k == 4 else 0,
                                         "page_faults": k}}
            records.append(r)
        self.assertEqual(gap_lines({"records": records}), [
            "gap counters over 4 gaps: on_cpu_ns p50 2.5 us (p90 3.7 us); involuntary_switches "
            "in 1 of 4 gaps; page_faults p50 2 (p90 4; in 4 of 4 gaps)"])


class Committed(unittest.TestCase):
    def test_every_committed_report_prints_what_the_records_say(self):
        pairs = 0
        for results in sorted(glob.glob(os.path.join(ROOT, "docs/results/*gap*/*.results.json.xz"))):
            report = results.replace(".results.json.xz", ".report.txt")
            if not os.path.exists(report):
                continue
            with lzma.open(results, "rt") as f:
                runs = json.load(f)["runs"]
            with open(report) as f:
                printed = sections(f.read())
            for run in runs:
                want = gap_lines(run)
                got = printed_gap_lines(printed.get(run["index"], []))
                with self.subTest(file=os.path.basename(results), run=run["index"]):
                    self.assertEqual(got, want)
                pairs += bool(want)
        self.assertGreater(pairs, 0, "no committed run took its gaps apart")


if __name__ == "__main__":
    unittest.main()
