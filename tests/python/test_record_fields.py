"""The Python readers of a copy's record held to the record fields' table (issue 55 item 3):
every key that python/xferlab_plots/results.py and the audit (tests/python/audit_*.py) read
from a results.json record is one the table (app/results/record_fields.cpp) names, as
`xferlab help record-fields --json` prints it. A renamed key fails here, not in a report.
Run by ctest (python/test_record_fields) with XFERLAB naming the binary."""
import ast
import inspect
import json
import os
import subprocess
import textwrap
import unittest

import numpy as np

import audit_facts
import audit_full_lines
import audit_gap_lines
from xferlab_plots import results

# The functions that read a results.json record, and the names a record goes by in each.
RECORD_READERS = [
    (audit_facts, "rec_of", {"raw"}),
    (audit_full_lines, "timed_block_lines", {"raw"}),
    (audit_gap_lines, "gaps", {"r", "prev"}),
    (audit_gap_lines, "stage_line", {"r"}),
    (audit_gap_lines, "counter_line", {"r"}),
]


def record_fields():
    out = subprocess.run([os.environ["XFERLAB"], "help", "record-fields", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def keys_read(function, names):
    """The string keys `function` reads from a variable of `names`: name["key"] and
    name.get("key", ...)."""
    keys = set()
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(function)))):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in names and isinstance(node.slice, ast.Constant)):
            keys.add(node.slice.value)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and isinstance(node.func.value, ast.Name)
                and node.func.value.id in names and node.args
                and isinstance(node.args[0], ast.Constant)):
            keys.add(node.args[0].value)
    return keys


class RecordFieldsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fields = {f["json_key"]: f for f in record_fields()}

    def test_the_table_lists_every_field_once(self):
        table = record_fields()
        self.assertEqual(len(self.fields), len(table))
        self.assertIn("size_bytes", self.fields)
        self.assertEqual(self.fields["size_bytes"]["name"], "bytes")
        self.assertEqual(self.fields["size_bytes"]["column"], "size_bytes")

    def test_the_figures_columns_are_record_keys_of_their_type(self):
        for key, dtype in results.COLUMNS.items():
            with self.subTest(key=key):
                self.assertIn(key, self.fields)
                kind = self.fields[key]["type"]
                if kind == "bool":
                    self.assertIs(dtype, np.bool_)
                else:  # an integer field: int64, or float64 where the figures scale it
                    self.assertTrue(kind.startswith(("int", "uint")), kind)
                    self.assertIn(dtype, (np.int64, np.float64))

    def test_the_audit_reads_record_keys_the_table_names(self):
        for module, name, names in RECORD_READERS:
            with self.subTest(reader=f"{module.__name__}.{name}"):
                read = keys_read(getattr(module, name), names)
                self.assertTrue(read, "reads no record key: the reader moved?")
                unknown = sorted(read - set(self.fields))
                self.assertEqual(unknown, [], "keys no record field has")

    def test_a_renamed_key_is_caught(self):
        # The check itself: a reader of a key the table does not name is reported.
        def reader(raw):
            return raw["size_bytes"], raw.get("bytes_copied", 0)
        self.assertEqual(keys_read(reader, {"raw"}) - set(self.fields), {"bytes_copied"})


if __name__ == "__main__":
    unittest.main()
