"""The programs of tests/watch_programs (run under `xferlab watch` on the GPU host) and the
sitecustomize `xferlab watch` puts on PYTHONPATH (python/xferlab_watch), without a GPU: the
programs parse their arguments and say what they take before importing CuPy or PyTorch; the
sitecustomize gives a threading.Thread's OS thread its name and still imports the program's own
sitecustomize."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "watch_programs"
SHIM = ROOT / "python" / "xferlab_watch"
sys.path.insert(0, str(PROGRAMS))

import watch_common  # noqa: E402


def run(args, env=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=60)


class Programs(unittest.TestCase):
    def test_sizes_parse_as_the_reports_write_them(self):
        self.assertEqual(watch_common.size("1GiB"), 1 << 30)
        self.assertEqual(watch_common.size("64MiB"), 64 << 20)
        self.assertEqual(watch_common.size("4096"), 4096)
        self.assertEqual(watch_common.size("1.5KiB"), 1536)

    def test_each_program_says_what_it_takes_without_a_gpu(self):
        for name in ["cupy_set_threads.py", "xferlab_copy_threads.py", "torch_dataloader.py",
                     "multiprocessing_copies.py"]:
            with self.subTest(name):
                r = run([str(PROGRAMS / name), "--help"])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("xferlab watch -- python3 tests/watch_programs/" + name, r.stdout)

    def test_a_bad_size_is_refused(self):
        r = run([str(PROGRAMS / "cupy_set_threads.py"), "--bytes", "lots"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--bytes: invalid size value: 'lots'", r.stderr)


SCRIPT = """
import threading
def comm():
    with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
        print(f.read().strip())
t = threading.Thread(target=comm, name="loader-worker-number-7"); t.start(); t.join()
import sitecustomize; print(sitecustomize.__name__, getattr(sitecustomize, "MINE", "shim"))
"""


class ThreadNames(unittest.TestCase):
    def env(self, *paths):
        e = dict(os.environ)
        e["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
        return e

    @unittest.skipUnless(sys.platform.startswith("linux"), "names OS threads through /proc")
    def test_a_thread_gets_its_name_cut_to_15_bytes(self):
        r = run(["-c", SCRIPT], env=self.env(SHIM))
        self.assertEqual(r.returncode, 0, r.stderr)
        expected = "loader-worker-number-7"
        if sys.version_info < (3, 14):
            expected = expected[:15]  # Linux keeps 15 bytes; 3.14 cuts the same way itself
        self.assertEqual(r.stdout.splitlines()[0], expected)

    def test_the_programs_own_sitecustomize_is_still_imported(self):
        with tempfile.TemporaryDirectory() as other:
            pathlib.Path(other, "sitecustomize.py").write_text("MINE = 'the program'\n")
            r = run(["-c", SCRIPT], env=self.env(SHIM, other))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[1], "sitecustomize the program")
        self.assertEqual(r.stderr, "")


if __name__ == "__main__":
    unittest.main()
