"""Stand-ins for CuPy and PyTorch on the test build's fake device (build/python-testing:
xferlab._core._testing), so that `bench-module.py --smoke` runs every section on a machine
without a GPU: host memory the module treats as device memory, cudaMemcpy as memmove. Only what
the benchmark calls; its numbers mean nothing."""
import ctypes
import sys
import types

import numpy as np

from xferlab import _core

testing = _core._testing


class _Data:
    def __init__(self, ptr):
        self.ptr = ptr


class FakeCupyArray:
    """A 1-D uint8 "device" array: fake-device memory (FakeDeviceArray) viewed through numpy."""

    def __init__(self, n=None, base=None, offset=0, length=None):
        if base is None:
            self._owner = testing.FakeDeviceArray(max(n, 1))
            self._view = np.ctypeslib.as_array(
                (ctypes.c_uint8 * max(n, 1)).from_address(self._owner.address(0)))[:n]
        else:
            self._owner = base._owner
            self._view = base._view[offset:offset + length]
        self.nbytes = self._view.size
        self.data = _Data(self._view.ctypes.data)

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.data.ptr, False),
                "strides": None, "version": 3, "stream": 1}

    def __getitem__(self, key):
        start, stop, _ = key.indices(self.nbytes) if isinstance(key, slice) else (key, key + 1, 1)
        return FakeCupyArray(base=self, offset=start, length=stop - start)

    def get(self, out=None):
        if out is None:
            return self._view.copy()
        out[...] = self._view
        return out

    def set(self, host):
        self._view[...] = host

    def item(self):
        return int(self._view[0])

    def __eq__(self, other):
        return FakeBool(bool(np.array_equal(self._view, other._view)))


class FakeBool:
    def __init__(self, value):
        self.value = value

    def all(self):
        return self

    def __bool__(self):
        return self.value


class FakeTensor(FakeCupyArray):
    @property
    def __cuda_array_interface__(self):
        cai = dict(FakeCupyArray.__cuda_array_interface__.fget(self))
        cai["version"] = 2
        del cai["stream"]
        return cai

    def data_ptr(self):
        return self.data.ptr

    def __getitem__(self, key):
        if isinstance(key, int):
            key = slice(key % self.nbytes, key % self.nbytes + 1)
        got = FakeCupyArray.__getitem__(self, key)
        out = FakeTensor.__new__(FakeTensor)
        out.__dict__.update(got.__dict__)
        return out

    def copy_(self, other):
        src = other._view if isinstance(other, FakeCupyArray) else other.numpy()
        self._view[...] = src
        return self

    def to(self, device):
        return self


class FakeHostTensor:
    def __init__(self, array):
        self._array = array

    def numpy(self):
        return self._array

    def copy_(self, other):
        self._array[...] = other._view
        return self

    def to(self, device):
        out = FakeTensor(self._array.size)
        out._view[...] = self._array
        return out


def _memcpy(dst, src, n, kind):
    ctypes.memmove(dst, src, n)


def _asarray(obj, device=None):
    if isinstance(obj, FakeCupyArray):
        out = FakeCupyArray(base=obj, offset=0, length=obj.nbytes)
        out.__class__ = FakeCupyArray
        return out
    out = FakeCupyArray(np.asarray(obj).nbytes)
    out._view[...] = np.asarray(obj).reshape(-1).view(np.uint8)
    return out


def install():
    """Puts `cupy` and `torch` stand-ins into sys.modules and turns the fake device on."""
    testing.use_fake_device(True)
    runtime = types.SimpleNamespace(
        memcpy=_memcpy, memcpyHostToDevice=1, memcpyDeviceToHost=2,
        memcpyAsync=lambda dst, src, n, kind, stream: _memcpy(dst, src, n, kind),
        streamSynchronize=lambda s: None, deviceSynchronize=lambda: None,
        pointerGetAttributes=lambda ptr: None,
        getDeviceCount=lambda: 1, getDeviceProperties=lambda d: {"name": b"fake device"})
    stream = types.SimpleNamespace(synchronize=lambda: None)
    cuda = types.SimpleNamespace(runtime=runtime, alloc_pinned_memory=lambda n: bytearray(n),
                                 get_current_stream=lambda: stream,
                                 Stream=lambda non_blocking=False: types.SimpleNamespace(
                                     ptr=0, synchronize=lambda: None))
    cupy = types.ModuleType("cupy")
    cupy.__version__ = "fake"
    cupy.uint8 = np.uint8
    cupy.cuda = cuda
    cupy.empty = lambda n, dtype=None: FakeCupyArray(n)
    cupy.asarray = _asarray
    torch = types.ModuleType("torch")
    torch.__version__ = "fake"
    torch.uint8 = np.uint8
    torch.empty = lambda n, dtype=None, device=None: FakeTensor(n)
    torch.from_numpy = FakeHostTensor
    torch.cuda = types.SimpleNamespace(synchronize=lambda: None)

    def as_tensor(obj, device=None):
        out = FakeTensor.__new__(FakeTensor)
        out.__dict__.update(obj.__dict__)
        return out

    torch.as_tensor = as_tensor
    sys.modules["cupy"] = cupy
    sys.modules["torch"] = torch
