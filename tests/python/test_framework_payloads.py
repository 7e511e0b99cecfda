"""The framework payloads (python_payloads/cupy_copy.py, torch_copy.py) where neither framework
nor a GPU is needed: the skips that say why, the per-run parameters, the host buffers. A fake
ctx stands in for xferlab's (the payloads run for real only inside xferlab, on a GPU host).
Run by ctest (tests/CMakeLists.txt) with the embedded Python's interpreter."""
import importlib
import sys
import types
import unittest

import numpy as np

import framework_support as support


class Skipped(Exception):
    """What the fake ctx.skip raises (xferlab's ends the run as skipped)."""


class FakeWorker:
    device = -1  # the host backend's


class FakeContext:
    def __init__(self, params=None, run_label="run"):
        self.params = params or {}
        self.run_label = run_label
        self.threads, self.bytes, self.copies = 2, 1000, 2

    def skip(self, reason):
        raise Skipped(reason)

    def worker(self, i):
        return FakeWorker()


def skip_reason(payload, ctx, modules):
    """The reason `payload`'s main(ctx) skips with, `modules` (name -> module, or None for one
    that cannot be imported) standing in for the real ones."""
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        importlib.import_module(payload).main(ctx)
    except Skipped as skipped:
        return str(skipped)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    raise AssertionError(f"{payload}.main(ctx) did not skip")


def fake_torch(cuda_available):
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0-fake"
    torch.cuda = types.SimpleNamespace(is_available=lambda: cuda_available)
    return torch


class Skips(unittest.TestCase):
    def test_cupy_not_importable(self):
        reason = skip_reason("cupy_copy", FakeContext(), {"cupy": None})
        self.assertTrue(reason.startswith("CuPy is not importable in the embedded Python ("))
        self.assertTrue(reason.endswith("): see docs/payload-api.md#which-python"))

    def test_cupy_on_the_host_backend(self):
        reason = skip_reason("cupy_copy", FakeContext(), {"cupy": types.ModuleType("cupy")})
        self.assertEqual(reason, "cupy_copy.py copies to a CUDA device; this run's backend has none")

    def test_torch_not_importable(self):
        reason = skip_reason("torch_copy", FakeContext(), {"torch": None})
        self.assertTrue(reason.startswith("PyTorch is not importable in the embedded Python ("))
        self.assertTrue(reason.endswith("): see docs/payload-api.md#which-python"))

    def test_torch_without_cuda(self):
        reason = skip_reason("torch_copy", FakeContext(), {"torch": fake_torch(False)})
        self.assertEqual(reason, "PyTorch 0.0-fake sees no CUDA device (torch.cuda.is_available() "
                                 "is False): see docs/payload-api.md#which-python")

    def test_torch_on_the_host_backend(self):
        reason = skip_reason("torch_copy", FakeContext(), {"torch": fake_torch(True)})
        self.assertEqual(reason,
                         "torch_copy.py copies to a CUDA device; this run's backend has none")

    def test_a_bad_api_is_an_error_naming_it(self):
        ctx = FakeContext({"api": "copy"})
        with self.assertRaisesRegex(ValueError, "params api = 'copy'"):
            skip_reason("cupy_copy", ctx, {"cupy": types.ModuleType("cupy")})


class RunParams(unittest.TestCase):
    def test_the_table_named_after_the_run_wins(self):
        ctx = FakeContext({"api": "set", "first_touch": "main", "cupy memcpy": {"api": "memcpy"},
                           "other run": {"api": "asarray"}}, run_label="cupy memcpy")
        self.assertEqual(support.run_params(ctx), {"api": "memcpy", "first_touch": "main"})

    def test_without_a_table_the_common_values(self):
        ctx = FakeContext({"api": "set", "other run": {"api": "asarray"}}, run_label="cupy set")
        self.assertEqual(support.run_params(ctx), {"api": "set"})

    def test_first_touch_names_a_thread(self):
        self.assertEqual(support.first_touch({}), "worker")
        with self.assertRaisesRegex(ValueError, 'first_touch = "gpu": expected "worker" or "main"'):
            support.first_touch({"first_touch": "gpu"})


class HostArray(unittest.TestCase):
    def test_each_worker_copies_its_own_pattern(self):
        a, b = support.host_array(1000, 0), support.host_array(1000, 1)
        self.assertEqual((a.dtype, a.size, b.size), (np.uint8, 1000, 1000))
        self.assertTrue((a[:support.PERIOD] == a[support.PERIOD:2 * support.PERIOD]).all())
        self.assertFalse((a == b).any())  # shifted: no byte of one worker's matches the other's


if __name__ == "__main__":
    unittest.main()
