"""The extension module `xferlab` on a real CUDA device, next to CuPy and PyTorch (issue #27).

Run on the GPU host by tools/gpu-host.sh (step `module`) with the build's python/ folder on
PYTHONPATH; every test skips, saying why, where CuPy, PyTorch or a device is missing. The same
checks on the fake device run in CI: test_xferlab_module.py beside this file.
"""
import threading

import numpy as np
import pytest

import xferlab

cupy = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

if cupy.cuda.runtime.getDeviceCount() < 1:
    pytest.skip("no CUDA device answers", allow_module_level=True)

# Odd sizes: below the direct-copy threshold, one byte less and more than a chunk multiple, and
# a copy that every helper takes part in.
SIZES = [1, 4095, (1 << 20) - 1, 1 << 20, (16 << 20) + 13, (256 << 20) + 7]


def pattern(n, seed=1):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


@pytest.mark.parametrize("n", SIZES)
def test_numpy_to_cupy_and_back_byte_exact(n):
    src = pattern(n, n % 97)
    dev = cupy.empty(n, dtype=cupy.uint8)
    xferlab.copy(dev, src)
    assert np.array_equal(cupy.asnumpy(dev), src)
    back = np.zeros(n, dtype=np.uint8)
    xferlab.copy(back, dev)
    assert np.array_equal(back, src)


@pytest.mark.parametrize("n", SIZES)
def test_numpy_to_torch_and_back_byte_exact(n):
    src = pattern(n, n % 89)
    dev = torch.empty(n, dtype=torch.uint8, device="cuda:0")
    xferlab.copy(dev, src)
    assert torch.equal(dev.cpu(), torch.from_numpy(src))
    back = torch.zeros(n, dtype=torch.uint8)  # a CPU tensor: buffer protocol via numpy()
    xferlab.copy(back.numpy(), dev)
    assert np.array_equal(back.numpy(), src)


def test_other_dtypes_and_shapes():
    a = np.random.default_rng(5).standard_normal((1000, 777)).astype(np.float64)
    dev = cupy.empty_like(a)
    xferlab.copy(dev, a)
    assert cupy.array_equal(dev, cupy.asarray(a))
    t = torch.empty((1000, 777), dtype=torch.float64, device="cuda:0")
    xferlab.copy(t, a)
    assert torch.equal(t.cpu(), torch.from_numpy(a))


def test_helpers_keep_shape_dtype_and_bytes():
    import xferlab.cupy
    import xferlab.torch

    a = np.arange(3 * 5 * 70001, dtype=np.int32).reshape(3, 5, 70001)
    c = xferlab.cupy.asarray(a)
    assert c.shape == a.shape and c.dtype == a.dtype and np.array_equal(c.get(), a)
    t = xferlab.torch.to_device(a, "cuda:0")
    assert tuple(t.shape) == a.shape and t.dtype == torch.int32
    assert np.array_equal(t.cpu().numpy(), a)


@pytest.mark.parametrize("threads", [1, 4])
def test_threads_at_once_share_one_engine(threads):
    n = (64 << 20) + 3
    srcs = [pattern(n, s) for s in range(threads)]
    devs = [cupy.empty(n, dtype=cupy.uint8) for _ in range(threads)]
    backs = [np.zeros(n, dtype=np.uint8) for _ in range(threads)]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                xferlab.copy(devs[i], srcs[i])
                xferlab.copy(backs[i], devs[i])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    for i in range(threads):
        assert np.array_equal(backs[i], srcs[i])
        assert np.array_equal(cupy.asnumpy(devs[i]), srcs[i])


@pytest.mark.parametrize("start", ["helpers", "caller"])
def test_an_engine_stages_pageable_and_copies_page_locked_in_place(start):
    n = 64 << 20
    src = pattern(n, 7)
    pinned_mem = cupy.cuda.alloc_pinned_memory(n)
    pinned = np.frombuffer(pinned_mem, dtype=np.uint8, count=n)
    pinned[...] = src
    pinned_tensor = torch.from_numpy(src).pin_memory()
    with xferlab.Engine(device=0, measure=True, start=start) as e:
        dev = cupy.empty(n, dtype=cupy.uint8)
        e.copy(dev, src)  # pageable: staged
        e.copy(dev, pinned)  # page-locked (CuPy): one plain copy
        t = torch.empty(n, dtype=torch.uint8, device="cuda:0")
        e.copy(t, pinned_tensor)  # page-locked (PyTorch): one plain copy
        s = e.stats()
    assert np.array_equal(cupy.asnumpy(dev), src)
    assert torch.equal(t.cpu(), pinned_tensor)
    assert s["copies"]["staged"] == 1 and s["copies"]["plain"] == 2
    assert s["bytes"]["to_device"] == n and s["bytes"]["plain"] == 2 * n
    # With start="caller" the caller copied pieces of its copy's first buffer, the helpers the
    # rest; with "helpers" (the default) they copied all: every byte once.
    assert (s["callers"]["copied_bytes"] > 0) == (start == "caller")
    assert s["chunks"] >= 1 and s["helpers"]["copied_bytes"] + s["callers"]["copied_bytes"] == n
    assert s["threads"] >= 1 and "helper" in s["summary"]


def test_the_copy_waits_for_the_stream_it_is_given():
    """A kernel on a non-blocking stream writes the array; the D2H copy given that stream must
    see the kernel's result, not what was there before (the default stream does not wait for a
    non-blocking one)."""
    n = 256 << 20
    s = cupy.cuda.Stream(non_blocking=True)
    dev = cupy.zeros(n // 4, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    with s:
        for _ in range(20):  # long enough that the copy would overtake it without the wait
            dev += 1
    host = np.empty(n // 4, dtype=np.float32)
    xferlab.copy(host, dev, stream=s)
    assert (host == 20).all()
    # H2D on a torch stream: after the call the bytes are there for the stream's next work.
    ts = torch.cuda.Stream()
    t = torch.zeros(n, dtype=torch.uint8, device="cuda:0")
    src = pattern(n, 3)
    xferlab.copy(t, src, stream=ts)
    with torch.cuda.stream(ts):
        total = int(t.sum(dtype=torch.int64).item())
    assert total == int(src.sum(dtype=np.int64))


@pytest.mark.parametrize("make", [lambda: cupy.empty(0, dtype=cupy.float32),
                                  lambda: torch.empty(0, device="cuda:0")],
                         ids=["cupy", "torch"])
def test_a_copy_of_zero_bytes_does_nothing(make):
    dev = make()
    host = np.empty(0, dtype=np.float32)
    xferlab.copy(dev, host)
    xferlab.copy(host, dev)
    with xferlab.Engine(device=0) as e:
        e.copy(dev, host)
        assert e.stats()["copies"] == {"staged": 0, "plain": 0, "host": 0}


def test_pageable_memory_goes_as_the_device_reads_it():
    """Staged unless the device reads pageable memory through the host's page tables
    (cudaDevAttrPageableMemoryAccessUsesHostPageTables, 100): then one plain copy."""
    reads = cupy.cuda.runtime.deviceGetAttribute(100, 0) != 0
    n = (64 << 20) + 9
    src = pattern(n, 13)
    dev = cupy.empty(n, dtype=cupy.uint8)
    with xferlab.Engine(device=0) as e:
        e.copy(dev, src)
        s = e.stats()
    assert s["pageable"]["route"] == ("direct" if reads else "staged")
    assert s["copies"] == ({"staged": 0, "plain": 1, "host": 0} if reads else
                           {"staged": 1, "plain": 0, "host": 0})
    assert np.array_equal(cupy.asnumpy(dev), src)


def test_a_file_mapped_with_numpy_memmap_arrives(tmp_path):
    n = (96 << 20) + 4099
    data = pattern(n, 17)
    data.tofile(tmp_path / "weights.bin")
    for mapped_files in ("copy", "read"):
        with xferlab.Engine(device=0, mapped_files=mapped_files) as e:
            dev = cupy.empty(n, dtype=cupy.uint8)
            e.copy(dev, np.memmap(tmp_path / "weights.bin", dtype=np.uint8, mode="r"))
            assert np.array_equal(cupy.asnumpy(dev), data), mapped_files
            out = np.memmap(tmp_path / "out.bin", dtype=np.uint8, mode="w+", shape=(n,))
            e.copy(out, dev)
            out.flush()
            assert np.array_equal(np.fromfile(tmp_path / "out.bin", dtype=np.uint8), data)
            del out


def test_refusals_on_a_device():
    dev = cupy.empty(100, dtype=cupy.uint8)
    with pytest.raises(ValueError, match="sizes differ"):
        xferlab.copy(dev, np.zeros(99, dtype=np.uint8))
    with pytest.raises(ValueError, match="ascontiguousarray"):
        xferlab.copy(dev, np.zeros(200, dtype=np.uint8)[::2])
    with pytest.raises(ValueError, match="both dst .* and src .* are device memory"):
        xferlab.copy(dev, cupy.zeros(100, dtype=cupy.uint8))
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(xferlab.Error, match=f"device {count} does not exist"):
        xferlab.Engine(device=count)


def test_engines_share_the_cpus_and_a_closed_one_gives_its_share_back():
    """threads="auto" engines count each other in the machine's engine registry: while a second
    one is open, an engine's copies use fewer of its helpers; once it is closed (its Python
    object still alive) they use more again."""
    n = 64 << 20
    src = pattern(n, 11)
    dev = cupy.empty(n, dtype=cupy.uint8)
    with xferlab.Engine(device=0) as mine:
        mine.copy(dev, src)
        alone = mine.stats()["active_helpers"]
        alone_registry = mine.stats()["registry"]  # the shared engine of earlier tests counts
        other = xferlab.Engine(device=0)
        other.copy(dev, src)
        mine.copy(dev, src)
        shared = mine.stats()["active_helpers"]
        shared_registry = mine.stats()["registry"]
        other.close()
        assert other.stats()["active_helpers"] == 0
        assert other.stats()["registry"] is None
        import time
        time.sleep(1.1)  # the registry is read again when it changed, or after a second
        mine.copy(dev, src)
        again = mine.stats()["active_helpers"]
        again_registry = mine.stats()["registry"]
        threads = mine.stats()["threads"]
    assert 1 <= shared < alone <= threads
    assert again == alone
    assert alone_registry["registered"], alone_registry
    assert shared_registry["engines"] == alone_registry["engines"] + 1
    assert shared_registry["helpers"] == shared
    assert again_registry["engines"] == alone_registry["engines"]
    assert again_registry["helpers"] == alone
    assert np.array_equal(cupy.asnumpy(dev), src)
