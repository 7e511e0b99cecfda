"""The extension module `xferlab` (issue #27) on the fake device: host memory that the module
treats as device memory, copied through the same staging engine as on a GPU (its helpers, its
chunks). Run by ctest with the build's python/ folder on PYTHONPATH (tests/CMakeLists.txt);
test_gpu_module.py beside it holds the same checks on a real device with CuPy and PyTorch
(the GPU host runs it; ctest leaves it out)."""
import array
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import xferlab
from xferlab import _core

testing = _core._testing  # the test build's module (build/python-testing) has it
CHUNK = 1 << 20  # the "auto" chunk, on the fake device as on a GPU (engine/engine_resolve.hpp)
MiB = 1 << 20


@pytest.fixture(autouse=True)
def fake_device():
    testing.use_fake_device(True)
    testing.fail_dma_at(0)
    yield
    testing.use_engine_registry("")
    testing.reads_pageable(0, False)
    testing.use_fake_device(False)


def pattern(n, seed=1):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def round_trip(n, engine=None, seed=1):
    src = pattern(n, seed)
    dev = testing.FakeDeviceArray(n)
    back = np.zeros(n, dtype=np.uint8)
    copy = engine.copy if engine else xferlab.copy
    copy(dev, src)
    assert dev.tobytes() == src.tobytes()
    copy(back, dev)
    assert np.array_equal(back, src)


def in_threads(fn, args):
    """fn(a) for each of `args` on a thread of its own, all at once; what they raised."""
    errors = []

    def one(a):
        try:
            fn(a)
        except Exception as e:  # noqa: BLE001 - returned, told on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=one, args=(a,)) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


class DlpackOnly:
    """A host array reachable through DLPack alone (as a torch CPU tensor is)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class ArrayInterfaceOnly:
    """A host array reachable through __array_interface__ alone."""

    def __init__(self, a):
        self._a = a
        self.__array_interface__ = a.__array_interface__


class DeviceArrayWithHostBuffer(np.ndarray):
    """An array with a buffer and a device interface naming other memory (a CuPy array offers
    both; its buffer raises, a managed one's does not): the interface says where it lives."""

    @property
    def __cuda_array_interface__(self):
        return self.device_twin.__cuda_array_interface__


def test_a_device_interface_wins_over_a_buffer():
    n = 3 * CHUNK + 5
    src = pattern(n, seed=7)
    twin = testing.FakeDeviceArray(n)
    dst = np.zeros(n, dtype=np.uint8).view(DeviceArrayWithHostBuffer)
    dst.device_twin = twin
    xferlab.copy(dst, src)
    assert twin.tobytes() == src.tobytes()  # the device memory got the bytes
    assert not dst.any()  # the host buffer did not
    back = np.zeros(n, dtype=np.uint8)
    xferlab.copy(back, dst)
    assert np.array_equal(back, src)


def test_the_api():
    assert callable(xferlab.copy)
    assert issubclass(xferlab.Error, RuntimeError)
    assert xferlab.__version__
    e = xferlab.Engine()
    assert e.device == 0 and e.threads == 3 and not e.closed
    e.close()
    assert e.closed


@pytest.mark.parametrize("n", [1, 4095, 4096, 4097, CHUNK + 1, (1 << 20) - 1, 1 << 20,
                               (1 << 20) + 1, (3 << 20) + 123, (12 << 20) + 123])
def test_every_byte_arrives_both_ways(n):
    round_trip(n)  # plain below the thresholds, staged above
    with xferlab.Engine(direct_below=0) as e:  # every size staged
        round_trip(n, e)


def test_staged_copies_are_cut_into_chunks_and_counted():
    n = (3 << 20) + 123
    with xferlab.Engine(threads=2, chunk=8192, dma="chunk", direct_below=0, measure=True) as e:
        round_trip(n, e)
        s = e.stats()
    assert s["dma"] == "chunk"
    chunks = -(-n // 8192)
    assert s["copies"] == {"staged": 2, "plain": 0, "host": 0}
    assert s["chunks"] == 2 * chunks
    assert s["bytes"]["to_device"] == n and s["bytes"]["from_device"] == n
    assert s["helpers"]["copied_bytes"] == 2 * n  # every byte through a page-locked buffer
    assert s["summary"].startswith(f"2 helpers, {2 * chunks} DMAs; of their busy time copying")


def test_dma_sized_buffers_filled_by_the_helpers_together():
    n = (3 << 20) + 123
    with xferlab.Engine(threads=3, chunk=8192, dma="32KiB", direct_below=0, measure=True,
                        start="caller") as e:
        round_trip(n, e)
        s = e.stats()
    dmas = -(-n // 32768)  # one DMA per 32 KiB, every byte copied by a helper once each way
    assert s["chunks"] == 2 * dmas
    assert s["pieces"] == 2 * sum(-(-min(32768, n - at) // 8192) for at in range(0, n, 32768))
    assert s["bytes"]["to_device"] == n and s["bytes"]["from_device"] == n
    # Every byte copied once each way: by the helpers, and by the caller, which fills pieces of
    # its first DMA to the device (start="caller")
    assert s["helpers"]["copied_bytes"] + s["callers"]["copied_bytes"] == 2 * n
    assert 0 < s["callers"]["copied_bytes"] <= 32768
    assert s["dma"] == 32768
    with pytest.raises(ValueError) as raised:
        xferlab.Engine(dma="1KiB")
    assert str(raised.value) == 'dma: a DMA must be at least 4 KiB; got "1KiB"'


def test_by_default_the_helpers_fill_dmas_of_eight_chunks_together():
    # The defaults of a GPU's engine: pieces of 1 MiB both ways in DMAs of 8 MiB, four chunks of
    # page-locked memory per helper (half a DMA), 3 helpers on a fake device.
    n = (19 << 20) + 123
    with xferlab.Engine(direct_below=0) as e:
        round_trip(n, e)
        s = e.stats()
    assert (s["chunk_to_device"], s["chunk_from_device"], s["dma"]) == (MiB, MiB, 8 * MiB)
    assert (s["threads"], s["buffers"]) == (3, 4)
    assert s["chunks"] == 2 * -(-n // (8 * MiB))  # the DMAs, both ways
    # Every DMA in chunks, both ways: the helpers alone fill the first one (start="helpers").
    assert s["pieces"] == 2 * -(-n // MiB)
    assert s["callers"] is None  # not measured
    assert "2 shared buffers of 8 MiB (16 MiB page-locked), each filled by the helpers together " \
           "in chunks of 1 MiB" in s["note"]
    # An explicit chunk keeps eight per DMA and four per helper; explicit buffers stay.
    with xferlab.Engine(threads=3, chunk="16KiB", direct_below=0) as e:
        assert (e.stats()["dma"], e.stats()["buffers"]) == (131072, 4)
    with xferlab.Engine(threads=3, buffers=3, direct_below=0) as e:
        assert e.stats()["buffers"] == 3
    # "chunk" turns the shared DMAs off: a DMA per chunk of 4 MiB to the device and 2 MiB from
    # it, two buffers per helper.
    with xferlab.Engine(threads=3, dma="chunk", direct_below=0) as e:
        round_trip(n, e)
        s = e.stats()
    assert s["dma"] == "chunk" and s["buffers"] == 2
    assert (s["chunk_to_device"], s["chunk_from_device"]) == (4 * MiB, 2 * MiB)
    assert s["chunks"] == -(-n // (4 * MiB)) + -(-n // (2 * MiB))


def test_the_options_read_back_as_given_and_as_a_scenario_records_them():
    given = {"threads": 2, "chunk": "256KiB", "buffers": 6, "dma": "2MiB", "affinity": "none",
             "streams": "per-helper", "wait": "block", "mapped_files": "copy", "start": "helpers",
             "lock": "spin", "direct_below": 0, "wake": "call",
             "pageable": "staged", "measure": True}
    with xferlab.Engine(**given) as e:
        round_trip((5 << 20) + 3, e)
        s = e.stats()
    assert s["options"] == {**given, "chunk": "256 KiB", "dma": "2 MiB", "direct_below": "0 B"}
    assert (s["threads"], s["chunk_to_device"], s["buffers"], s["dma"]) == (2, 256 << 10, 6,
                                                                          2 * MiB)
    assert "one stream per helper, helpers sleep (staging.wait = \"block\")" in s["note"]
    assert "faulting its pages in (staging.mapped_files = \"copy\")" in s["note"]
    assert "tries for a while before it sleeps (staging.lock = \"spin\")" in s["note"]



@pytest.mark.parametrize("lock", ["spin", "block"])
def test_stats_count_the_engines_lock_found_taken_and_slept_for(lock):
    """lock = "block" sleeps every time it finds the lock taken; "spin" tries first. Four
    threads through six helpers: the lock is found taken (REQUIRE'd, or nothing is tested)."""
    with xferlab.Engine(threads=6, chunk="64KiB", dma="256KiB", buffers=2, direct_below=0,
                        lock=lock) as e:
        def copies(k):
            for _ in range(3):
                round_trip((3 << 20) + k, e, seed=k)  # the bytes arrived, both ways

        assert in_threads(copies, range(4)) == []
        s = e.stats()
    assert s["options"]["lock"] == lock
    assert s["lock"]["contended"] > 0
    if lock == "block":
        assert s["lock"]["slept"] == s["lock"]["contended"]
    else:
        assert s["lock"]["slept"] <= s["lock"]["contended"]


@pytest.mark.parametrize("wake", ["call", "arrival"])
def test_a_call_wakes_the_helpers_where_the_engines_latest_copy_was_staged(wake):
    """wake = "call": a call through an engine whose latest copy was staged wakes its helpers as
    it enters (stats()["heads_ups"]); after a plain copy nothing is woken; "arrival": never."""
    n = 2 << 20
    with xferlab.Engine(threads=2, chunk="64KiB", dma="256KiB", direct_below="1MiB",
                        wake=wake) as e:
        round_trip(n, e)          # staged: no copy before it, so no heads-up yet
        first = e.stats()["heads_ups"]
        time.sleep(0.6)           # past a heads-up's 500 us either way
        round_trip(n, e, seed=2)  # two calls, each after a staged copy
        after_staged = e.stats()["heads_ups"]
        round_trip(4096, e)       # plain (below direct_below): the next call wakes nobody
        time.sleep(0.6)
        round_trip(4096, e)
        after_plain = e.stats()["heads_ups"]
    assert first == (1 if wake == "call" else 0)  # the way back, after the staged way there
    assert after_staged - first == (2 if wake == "call" else 0)
    # The first small call still followed a staged copy; the second followed a plain one.
    assert after_plain - after_staged == (1 if wake == "call" else 0)


def test_xferlab_copy_wakes_the_shared_engine_that_staged_the_latest_copy():
    n = 16 << 20  # above the shared engine's direct_below (12 MiB to the device)
    round_trip(n)
    before = testing.shared_engine_stats(0)["heads_ups"]
    time.sleep(0.6)
    round_trip(n, seed=2)
    # Each call after a staged copy wakes the helpers where the default is "call".
    woken = 2 if xferlab.Engine.defaults()["wake"]["default"] == "call" else 0
    assert testing.shared_engine_stats(0)["heads_ups"] - before == woken


def test_the_module_and_a_scenario_share_every_option_and_its_default():
    """[staging]'s keys and Engine()'s options are rows of one table: the scenario's defaults, as
    `xferlab help scenario-keys` prints them, are Engine.defaults(), and Engine's options beyond
    them are the module's own (no [staging] key: a staged run always stages)."""
    binary = os.environ.get("XFERLAB_BINARY")
    if not binary:
        pytest.skip("XFERLAB_BINARY not set (ctest sets it to the build's xferlab)")
    text = subprocess.run([binary, "help", "scenario-keys"], check=True, capture_output=True,
                          text=True).stdout
    scenario = {}
    for line in text.splitlines():
        if line.startswith("staging."):
            key, rest = line.split(None, 1)
            columns = [c for c in rest.split("  ") if c.strip()]
            scenario[key[len("staging."):]] = json.loads(columns[1].strip())
    defaults = {k: d["default"] for k, d in xferlab.Engine.defaults().items()}
    assert scenario, text
    assert {k: defaults[k] for k in scenario} == scenario
    assert set(defaults) - set(scenario) == {"direct_below", "pageable", "wake", "measure"}
    # And an engine made without arguments is made with them.
    with xferlab.Engine() as e:
        assert e.stats()["options"] == defaults


def test_engine_defaults_are_the_numbers_an_engine_here_uses_with_the_rule_for_auto():
    """Engine.defaults(): beside each option's default, what an engine made without arguments
    on this device uses (the fake device: 3 helpers), and the rule that made it of "auto"."""
    d = xferlab.Engine.defaults()
    with xferlab.Engine() as e:
        s = e.stats()
    assert d["threads"]["value"] == s["threads"] == 3
    assert d["chunk"]["value"] == s["chunk_to_device"] == s["chunk_from_device"] == MiB
    assert d["buffers"]["value"] == s["buffers"] == 4
    assert d["dma"]["value"] == s["dma"] == 8 * MiB
    assert d["direct_below"]["value"] == s["direct_below"] == {"to_device": 12 * MiB,
                                                               "from_device": 4 * MiB}
    assert d["pageable"]["value"] == s["pageable"]["route"] == "staged"
    assert (d["streams"]["value"], d["wait"]["value"]) == ("one", "spin")
    assert (d["mapped_files"]["value"], d["measure"]["value"]) == ("read", False)
    # The rules print the numbers the engine applies; an option without "auto" has none.
    assert d["chunk"]["rule"] == ('auto: 1 MiB; with dma = "chunk" 4 MiB to the device, '
                                  '2 MiB from it')
    assert d["buffers"]["rule"] == 'auto: 4, or 2 with dma = "chunk"'
    assert d["dma"]["rule"] == "auto: 8 chunks, 8 MiB with the chunk left auto"
    assert d["direct_below"]["rule"] == "auto: 12 MiB to the device, 4 MiB from it"
    assert "at most 12" in d["threads"]["rule"]
    assert all(d[k]["rule"] is None for k in ("affinity", "streams", "wait", "mapped_files",
                                               "measure"))
    assert all(d[k]["rule"].startswith("auto: ") for k in d if d[k]["default"] == "auto")


def test_retired_options_are_refused_with_what_happened_to_them():
    for name, value in (("taper", True), ("ramp", True), ("linger_us", 200)):
        with pytest.raises(TypeError) as raised:
            xferlab.Engine(**{name: value})
        assert f"{name} was retired in issue #45" in str(raised.value)
    for name, value, why in (
            ("stores", "streaming", "streaming stores into the page-locked buffers measured "
                                    "slower than cached ones in every pass on H200"),
            ("populate", "ahead", "idle helpers faulting a copy's pages in ahead measured "
                                  "slower by median in all three passes on H200")):
        with pytest.raises(TypeError) as raised:
            xferlab.Engine(**{name: value})
        assert str(raised.value).startswith(f"{name} was retired in issue #55: {why}")
        assert "remove it" in str(raised.value)
    with pytest.raises(TypeError) as raised:
        xferlab.Engine(chunks="1MiB")
    assert "unexpected keyword argument 'chunks' (did you mean 'chunk'?)" in str(raised.value)


def test_stats_time_nothing_unless_asked_and_give_a_copys_edges_when_asked():
    with xferlab.Engine(threads=2, direct_below=0) as e:
        round_trip((1 << 20) + 5, e)
        s = e.stats()
    assert s["measured"] is False and s["helpers"] is None and s["edges"] is None
    assert s["chunks"] == 2  # counts are kept either way
    with xferlab.Engine(threads=2, direct_below=0, measure=True) as e:
        edges = e.stats()["edges"]
        assert edges == {"copies": 0, "to_first_dma_us": 0.0, "after_last_dma_us": 0.0,
                         "dma_span_us": 0.0, "link_starved_us": 0.0, "in_engine_s": 0.0,
                         "to_first_helper_us": 0.0, "woke": 0}
        before = time.monotonic_ns()
        round_trip((1 << 20) + 5, e)
        after = time.monotonic_ns()
        s = e.stats()
    # The last copy's moments, and its call's before the engine, on Python's monotonic clock,
    # in order inside the caller's own.
    last, call = s["last_copy_ns"], s["last_call_ns"]
    assert before <= call["entered"] <= call["viewed"] <= call["routed"] <= call["waited"] \
        <= last["arrived"] <= last["first_dma"] <= last["last_done"] <= last["finished"] <= after
    edges = s["edges"]
    assert s["measured"] is True
    assert edges["copies"] == 2  # both ways
    assert edges["to_first_dma_us"] >= 0 and edges["after_last_dma_us"] >= 0
    assert edges["dma_span_us"] >= 0 and edges["link_starved_us"] >= 0
    spent = edges["to_first_dma_us"] + edges["dma_span_us"] + edges["after_last_dma_us"]
    assert 2 * spent <= edges["in_engine_s"] * 1e6 + 1e-6  # means over 2 copies, total time
    assert s["helpers"]["copied_bytes"] + s["callers"]["copied_bytes"] == 2 * ((1 << 20) + 5)
    assert 0 <= edges["to_first_helper_us"] and 0 < edges["woke"] <= 2
    # Each copy was alone in the engine: the one to the device filled its first buffer before
    # its first DMA (the one from it fills none first), taken apart.
    fill = s["first_fill"]
    assert fill["copies"] == 1
    assert 0 <= fill["slowest_piece_us"] <= fill["to_fill_done_us"] <= 1e6 * s["edges"]["in_engine_s"]
    assert 0 <= fill["helpers_woken"] <= 2


def test_small_copies_and_page_locked_memory_skip_the_helpers():
    with xferlab.Engine() as e:
        round_trip((1 << 20) - 1, e)  # below the threshold: one plain copy each way
        big = pattern(4 << 20)
        testing.register_page_locked(big)
        try:
            dev = testing.FakeDeviceArray(big.nbytes)
            e.copy(dev, big)
            assert dev.tobytes() == big.tobytes()
        finally:
            testing.unregister(big)
        s = e.stats()
    assert s["copies"]["staged"] == 0
    assert s["copies"]["plain"] == 3
    assert s["chunks"] == 0
    assert s["direct_below"] == {"to_device": 12 << 20, "from_device": 4 << 20}
    assert s["pageable"]["route"] == "staged"


def test_direct_below_moves_the_threshold():
    with xferlab.Engine(direct_below=0) as e:
        round_trip(4096, e)  # staged although small: one chunk each way
        s = e.stats()
    assert (s["copies"]["staged"], s["copies"]["plain"], s["chunks"]) == (2, 0, 2)
    with xferlab.Engine(direct_below="64KiB") as e:
        round_trip(64 << 10, e)  # not below: staged
        round_trip((64 << 10) - 1, e)
        s = e.stats()
    assert (s["copies"]["staged"], s["copies"]["plain"]) == (2, 2)
    with pytest.raises(ValueError, match="direct_below"):
        xferlab.Engine(direct_below=-1)


@pytest.mark.parametrize("make", [bytearray, lambda n: memoryview(bytearray(n)),
                                  lambda n: array.array("B", bytes(n)),
                                  lambda n: DlpackOnly(np.zeros(n, dtype=np.uint8)),
                                  lambda n: ArrayInterfaceOnly(np.zeros(n, dtype=np.uint8))])
def test_host_memory_of_every_accepted_kind(make):
    n = 3 * CHUNK + 5
    src = pattern(n)
    dev = testing.FakeDeviceArray(n)
    xferlab.copy(dev, src)
    host = make(n)
    xferlab.copy(host, dev)
    inner = host._a if isinstance(host, (DlpackOnly, ArrayInterfaceOnly)) else host
    assert bytes(memoryview(inner)) == src.tobytes()


@pytest.mark.parametrize("missing", ["data", "shape", "typestr"])
def test_an_array_interface_without_a_required_key_is_refused_by_name(missing):
    src = ArrayInterfaceOnly(np.zeros(16, dtype=np.uint8))
    src.__array_interface__ = {k: v for k, v in src.__array_interface__.items() if k != missing}
    with pytest.raises(ValueError) as raised:
        xferlab.copy(np.zeros(16, dtype=np.uint8), src)
    assert str(raised.value) == f'src: its array interface has no "{missing}"'


class ShapedInterface:
    """An __array_interface__ over 16 real bytes that claims another shape or item type."""

    def __init__(self, shape, typestr="|u1"):
        self._a = np.zeros(16, dtype=np.uint8)
        self.__array_interface__ = dict(self._a.__array_interface__, shape=shape,
                                        typestr=typestr)


@pytest.mark.parametrize("shape, typestr, words", [
    # Said 18446744073709551611 bytes before.
    ((-5,), "|u1", "has shape (-5,): an extent cannot be negative"),
    ((4, -4), "|u1", "has shape (4, -4): an extent cannot be negative"),
    # An overflowing shape became a 0-byte copy before, and two of them copied "successfully".
    ((1 << 62, 8), "|u1", "has shape (4611686018427387904, 8): with items of 1 byte: more "
                          "bytes than a 64-bit size holds"),
    ((1 << 61, 0, 16), "|u1", "has shape (2305843009213693952, 0, 16): with items of 1 byte: "
                              "more bytes"),
    ((16,), "|V", "has shape (16,): its items are 0 bytes each"),
])
def test_a_shape_that_is_no_size_is_refused_by_what_is_wrong(shape, typestr, words):
    for dst, src in ((np.zeros(16, dtype=np.uint8), ShapedInterface(shape, typestr)),
                     (ShapedInterface(shape, typestr), ShapedInterface(shape, typestr))):
        with pytest.raises(ValueError) as raised:
            xferlab.copy(dst, src)
        role = "src" if isinstance(dst, np.ndarray) else "dst"
        assert str(raised.value).startswith(f"{role} ({__name__}.ShapedInterface) {words}")


def test_strides_of_another_rank_than_the_shape_are_refused():
    # Read past the strides' end before (one stride for a 2-dimensional shape).
    src = ShapedInterface((4, 4))
    src.__array_interface__["strides"] = (4,)
    with pytest.raises(ValueError) as raised:
        xferlab.copy(np.zeros(16, dtype=np.uint8), src)
    assert str(raised.value) == \
        f"src ({__name__}.ShapedInterface) has 1 strides for a shape of 2 dimensions"


def test_other_dtypes_and_shapes_copy_their_bytes():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    dev = testing.FakeDeviceArray(a.nbytes)
    xferlab.copy(dev, a)
    b = np.empty_like(a)
    xferlab.copy(b, dev)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("case, kind, words", [
    ("sizes", ValueError, "sizes differ: dst (numpy.ndarray) has 5 bytes, src"),
    ("read-only", ValueError, "dst (numpy.ndarray) is read-only"),
    ("strided", ValueError, "numpy.ascontiguousarray(a)"),
    ("list", TypeError, "src (builtins.list) is not memory xferlab.copy can read"),
    ("both device", ValueError, "both dst (xferlab._core._testing.FakeDeviceArray) and src"),
    ("other device", ValueError, "the device memory is on device 1, this engine on device 0"),
    ("stream", TypeError, "stream: give a CUDA stream handle"),
    ("not on a device", ValueError, "says it is device memory, but its address is not device "
                                    "memory this process can reach"),
    ("other DLPack device", TypeError, "is on a DLPack device of type 10: xferlab.copy moves "
                                       "between host memory and CUDA devices"),
])
def test_refusals_say_what_to_do(case, kind, words):
    n = 4096
    dev = testing.FakeDeviceArray(n)
    src = pattern(n)
    with xferlab.Engine(device=0) as e:
        with pytest.raises(kind) as raised:
            if case == "sizes":
                xferlab.copy(np.zeros(5, dtype=np.uint8), dev)
            elif case == "read-only":
                ro = np.zeros(n, dtype=np.uint8)
                ro.flags.writeable = False
                xferlab.copy(ro, dev)
            elif case == "strided":
                xferlab.copy(dev, pattern(2 * n)[::2])
            elif case == "list":
                xferlab.copy(dev, [1, 2, 3])
            elif case == "both device":
                xferlab.copy(dev, testing.FakeDeviceArray(n))
            elif case == "other device":
                e.copy(testing.FakeDeviceArray(n, 1), src)
            elif case == "stream":
                xferlab.copy(dev, src, stream="fast")
            elif case == "not on a device":  # host memory behind a device interface
                host = np.zeros(n, dtype=np.uint8)
                fake = type("Fake", (), {"__cuda_array_interface__": {
                    "shape": (n,), "typestr": "|u1", "data": (host.ctypes.data, False),
                    "strides": None, "version": 3}})()
                xferlab.copy(fake, src)
            elif case == "other DLPack device":  # kDLROCM
                other = type("Rocm", (), {"__dlpack__": lambda self, stream=None: None,
                                          "__dlpack_device__": lambda self: (10, 0)})()
                xferlab.copy(other, src)
    assert words in str(raised.value)


def test_a_device_that_does_not_exist_and_a_closed_engine():
    with pytest.raises(xferlab.Error, match=r"device 5 does not exist: this machine has 2 CUDA "
                                            r"devices \(0 to 1\)"):
        xferlab.Engine(device=5)
    e = xferlab.Engine()
    e.close()
    with pytest.raises(xferlab.Error, match=r"the engine of device 0 is closed: make a new "
                                            r"xferlab.Engine\(device=0\)"):
        e.copy(testing.FakeDeviceArray(4096), pattern(4096))


def test_bad_engine_settings():
    for kwargs, words in [
            ({"threads": 0}, "threads: expected an integer from 1 to 256 (or \"auto\""),
            ({"chunk": 100}, "chunk: a staging chunk must be at least 4 KiB; got an integer"),
            ({"buffers": 0}, "buffers: expected an integer from 1 to 64"),
            ({"buffers": 65}, "buffers: expected an integer from 1 to 64"),
            ({"buffers": "many"}, "buffers: expected \"auto\"; got \"many\""),
            ({"affinity": "fast"}, "affinity: expected one of \"gpu-local\" or \"none\""),
            ({"streams": "per_helper"}, "(did you mean 'per-helper'?)"),
            ({"mapped_files": "mmap"}, "mapped_files: expected one of \"copy\" or \"read\""),
            ({"measure": 1}, "measure: expected true or false"),
            ({"direct_below": -1}, "direct_below: expected a size")]:
        with pytest.raises(ValueError) as raised:
            xferlab.Engine(**kwargs)
        assert words in str(raised.value), kwargs
    with pytest.raises(TypeError, match=r"threads: \{\} \(dict\) is not a value it takes"):
        xferlab.Engine(threads={})
    with xferlab.Engine(chunk="16KiB", affinity="none", threads=1) as e:
        s = e.stats()
        assert (s["chunk_to_device"], s["chunk_from_device"]) == (16384, 16384)  # both ways


def test_a_failing_dma_is_an_error_in_the_calling_thread_and_nothing_hangs():
    n = 1 << 21
    dev = testing.FakeDeviceArray(n)
    testing.fail_dma_at(dev.address(n // 2))
    with xferlab.Engine(direct_below=0) as e:  # staged: the helpers fail it
        with pytest.raises(xferlab.Error, match=r"staging on device 0: host-to-device chunk at "
                                                r"offset \d+ \(\d+ bytes of 2097152\): invalid"):
            e.copy(dev, pattern(n))
        testing.fail_dma_at(0)
    round_trip(n)  # the next engine copies as before


def test_four_threads_at_once_share_the_engine():
    n = (12 << 20) + 77  # staged both ways
    assert in_threads(lambda seed: round_trip(n, seed=seed), range(4)) == []


def test_the_gil_is_free_while_copies_run():
    """A canary thread keeps counting while four threads copy: with the GIL held across a copy
    it could not count at all until the copy returned."""
    n = 64 << 20
    count = [0]
    stop = threading.Event()

    def canary():
        while not stop.is_set():
            count[0] += 1

    srcs = [pattern(n, s) for s in range(4)]
    devs = [testing.FakeDeviceArray(n) for _ in range(4)]
    with xferlab.Engine(threads=1, chunk=1 << 20) as e:
        e.copy(devs[0], srcs[0])  # warm: the engine and the pages
        c = threading.Thread(target=canary)
        c.start()
        time.sleep(0.05)
        copiers = [threading.Thread(target=e.copy, args=(devs[i], srcs[i])) for i in range(4)]
        before = count[0]
        t0 = time.perf_counter()
        for t in copiers:
            t.start()
        for t in copiers:
            t.join()
        took = time.perf_counter() - t0
        during = count[0] - before
        stop.set()
        c.join()
    assert took > 0.01  # the copies took long enough to tell
    assert during > 1000, f"the canary counted {during} times in {took:.3f} s of copies"


def test_streams_are_waited_for_before_the_copy():
    n = 16 << 20  # staged
    dev = testing.FakeDeviceArray(n)
    dev.stream = 4242  # the producer's work on it (__cuda_array_interface__ v3)
    before = len(testing.waited_streams())
    xferlab.copy(dev, pattern(n), stream=777)
    waited = testing.waited_streams()[before:]
    assert waited == [4242, 777]  # the array's stream, then the caller's, then the copy

    class Stream:  # cupy.cuda.Stream's .ptr, torch.cuda.Stream's .cuda_stream, __cuda_stream__
        ptr = 11
    xferlab.copy(dev, pattern(n), stream=Stream())
    assert testing.waited_streams()[-1] == 11


def test_the_legacy_stream_is_waited_for_only_where_cuda_does_not_order_the_copy():
    small, big = testing.FakeDeviceArray(4096), testing.FakeDeviceArray(16 << 20)
    small.stream = big.stream = 1  # CuPy's and PyTorch's default: the legacy stream

    def waited_by(copy):
        before = len(testing.waited_streams())
        copy()
        return testing.waited_streams()[before:]

    # A plain copy on a default stream is ordered after the legacy stream by CUDA itself.
    assert 1 not in waited_by(lambda: xferlab.copy(small, pattern(4096)))
    # The helpers' streams are non-blocking, and so may be a stream the caller gives.
    assert waited_by(lambda: xferlab.copy(big, pattern(16 << 20)))[0] == 1
    assert waited_by(lambda: xferlab.copy(small, pattern(4096), stream=777))[0] == 1


class EmptyDeviceArray:
    """A device array of no elements as CuPy makes it (cupy.empty(0)): its data pointer is 0,
    which no device owns."""

    def __init__(self, stream=None):
        self.__cuda_array_interface__ = {"shape": (0,), "typestr": "<f8", "data": (0, False),
                                         "strides": None, "version": 3, "stream": stream}


@pytest.mark.parametrize("dst, src", [
    (EmptyDeviceArray(), np.empty(0)), (np.empty(0), EmptyDeviceArray()),
    (EmptyDeviceArray(), EmptyDeviceArray()), (np.empty(0), np.empty(0)),
    (bytearray(), b""), (EmptyDeviceArray(stream=4242), bytearray()),
    (lambda: testing.FakeDeviceArray(0), np.empty(0, dtype=np.uint8)),
    (np.empty(0, dtype=np.uint8), lambda: testing.FakeDeviceArray(0, 1)),
], ids=["to-device", "from-device", "device-device", "host-host", "bytes", "with-stream",
        "fake-device-to", "fake-device-1-from"])
def test_a_copy_of_zero_bytes_does_nothing_whatever_the_two_sides(dst, src):
    dst = dst() if callable(dst) else dst
    src = src() if callable(src) else src
    waited = len(testing.waited_streams())
    xferlab.copy(dst, src)
    with xferlab.Engine() as e:
        e.copy(dst, src)
        s = e.stats()
    assert s["copies"] == {"staged": 0, "plain": 0, "host": 0}
    assert len(testing.waited_streams()) == waited  # nothing to wait for either
    # Sizes must still agree, and a read-only destination is still refused.
    with pytest.raises(ValueError, match="sizes differ"):
        xferlab.copy(EmptyDeviceArray(), np.empty(1))


def test_where_the_device_reads_pageable_memory_every_copy_is_one_plain_copy():
    n = (16 << 20) + 5  # staged elsewhere
    testing.reads_pageable(0, True)
    with xferlab.Engine(measure=True) as e:
        round_trip(n, e)
        s = e.stats()
    assert s["pageable"] == {
        "route": "direct",
        "why": "direct: the device reads pageable memory through the host's page tables "
               "(cudaDevAttrPageableMemoryAccessUsesHostPageTables)"}
    assert s["copies"] == {"staged": 0, "plain": 2, "host": 0}
    assert s["bytes"]["plain"] == 2 * n and s["chunks"] == 0
    with xferlab.Engine(pageable="staged", direct_below=0) as e:  # asked: staged all the same
        round_trip(n, e)
        s = e.stats()
    assert s["pageable"]["route"] == "staged" and s["copies"]["staged"] == 2
    round_trip(n)  # the shared engine of a device made now reads it directly too
    testing.reads_pageable(0, False)
    with xferlab.Engine(pageable="direct") as e:  # asked where the device does not say so
        round_trip(n, e)
        assert e.stats()["copies"]["plain"] == 2


@pytest.mark.parametrize("mapped_files", ["copy", "read", None])
def test_a_file_mapped_with_numpy_memmap_is_copied_whole_both_ways(tmp_path, mapped_files):
    """None: the default, which reads the file (issue #58)."""
    n = (24 << 20) + 4099  # odd: the last page of the mapping is partial
    path = tmp_path / "weights.bin"
    data = pattern(n, seed=11)
    data.tofile(path)
    given = {} if mapped_files is None else {"mapped_files": mapped_files}
    mapped_files = mapped_files or "read"
    with xferlab.Engine(**given, direct_below=0) as e:
        src = np.memmap(path, dtype=np.uint8, mode="r")  # mapped, no page touched yet
        dev = testing.FakeDeviceArray(n)
        e.copy(dev, src)
        assert dev.tobytes() == data.tobytes()
        out = np.memmap(tmp_path / "out.bin", dtype=np.uint8, mode="w+", shape=(n,))
        e.copy(out, dev)  # into a fresh file mapping: every page written first by the copy
        out.flush()
        s = e.stats()
    assert np.array_equal(np.fromfile(tmp_path / "out.bin", dtype=np.uint8), data)
    assert s["bytes"]["to_device"] == n and s["bytes"]["from_device"] == n
    # "read": the file behind the mapping was read into the page-locked buffers, every byte
    # (where the kernel can say which file a mapping holds: PROCMAP_QUERY, Linux 6.11).
    assert s["options"]["mapped_files"] == mapped_files
    if mapped_files == "copy" or not kernel_finds_mapped_files():
        assert s["bytes"]["read_from_files"] == 0
    else:
        assert s["bytes"]["read_from_files"] == n


def kernel_finds_mapped_files():
    """Linux 6.11 or later: /proc/self/maps answers PROCMAP_QUERY (engine/mapped_files.hpp)."""
    release = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])
    return release >= (6, 11)


def test_host_to_host_needs_no_device():
    a = pattern(1 << 20)
    b = np.zeros_like(a)
    xferlab.copy(b, a)
    assert np.array_equal(a, b)


def test_an_engine_used_after_fork_says_so():
    e = xferlab.Engine()
    e.copy(testing.FakeDeviceArray(4096), pattern(4096))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            e.copy(testing.FakeDeviceArray(1 << 21), pattern(1 << 21))
            msg = "copied"
        except xferlab.Error as err:
            msg = str(err)
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    said = os.read(r, 1000).decode()
    os.waitpid(pid, 0)
    e.close()
    assert "a fork() of it: CUDA cannot be used in a forked child" in said


def test_helpers_import_their_framework_lazily():
    import importlib
    import sys
    for name, words in [("xferlab.cupy", "xferlab.cupy needs CuPy"),
                        ("xferlab.torch", "xferlab.torch needs PyTorch")]:
        helper = importlib.import_module(name)
        fn = helper.asarray if name.endswith("cupy") else helper.to_device
        framework = name.split(".")[1]
        if importlib.util.find_spec(framework) is not None:
            continue  # the GPU host has them: test_gpu_module.py covers the helpers there
        args = (np.zeros(4),) if framework == "cupy" else (np.zeros(4), "cuda:0")
        with pytest.raises(ImportError, match=words):
            fn(*args)
        assert framework not in sys.modules


# The engine registry (issue #27): engines with threads "auto" in several processes share the
# CPUs. The fake's auto engine wants 3 helpers and its device's cap is 3, so n engines let
# max(1, 3 // n) helpers take work each.
REGISTRY_CHILD = """
import json, sys
from xferlab import _core
_core._testing.use_fake_device(True)
_core._testing.use_engine_registry(sys.argv[1])
import xferlab
engine = xferlab.Engine()
print("ready", flush=True)
for line in sys.stdin:
    print(json.dumps(engine.stats()["registry"]), flush=True)
"""


def ask_registry(proc):
    proc.stdin.write("\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def wait_for_engines(procs, engines, timeout_s=10):
    """Every process's share once it counts `engines` live engines (a death bumps no
    generation: the survivors find the dead slot at their recheck, within a second)."""
    deadline = time.monotonic() + timeout_s
    while True:
        shares = [ask_registry(p) for p in procs]
        if all(s["engines"] == engines for s in shares) or time.monotonic() > deadline:
            return shares
        time.sleep(0.1)


def test_an_engine_has_no_registry_share_unless_it_joined_a_registry():
    with xferlab.Engine() as e:
        assert e.stats()["registry"] is None


def test_engines_of_one_process_share_and_a_closed_one_gives_its_share_back(tmp_path):
    testing.use_engine_registry(str(tmp_path / "engines"))
    with xferlab.Engine(direct_below=0) as a:  # every copy staged
        alone = a.stats()["registry"]
        assert alone["registered"] and alone["path"] == str(tmp_path / "engines")
        assert (alone["engines"], alone["helpers"], alone["wanted"]) == (1, 3, 3)
        with xferlab.Engine() as b:
            assert a.stats()["registry"]["engines"] == 2
            assert [x.stats()["registry"]["helpers"] for x in (a, b)] == [1, 1]
            round_trip(CHUNK * 5 + 3, engine=a)  # copies still arrive with one helper at work
            assert a.stats()["active_helpers"] == 1  # what the copies just let take work
        back = a.stats()["registry"]
        assert (back["engines"], back["helpers"]) == (1, 3)
        with xferlab.Engine(threads=2):  # fixed helpers: registered, not shared
            shared = a.stats()["registry"]
            assert (shared["engines"], shared["helpers"]) == (2, 1)
    with xferlab.Engine() as c:
        assert c.stats()["registry"]["engines"] == 1  # the closed engines left no slot


def test_engines_in_four_processes_share_and_killed_ones_leave_no_stale_share(tmp_path):
    path = str(tmp_path / "engines")
    procs = [subprocess.Popen([sys.executable, "-c", REGISTRY_CHILD, path], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
             for _ in range(4)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        four = wait_for_engines(procs, 4)
        assert [(s["engines"], s["helpers"], s["wanted"]) for s in four] == [(4, 1, 3)] * 4
        assert all(s["registered"] and s["path"] == path for s in four)

        victim = procs.pop(0)
        victim.send_signal(signal.SIGKILL)  # no destructor runs: the kernel drops its lock
        assert victim.wait() == -signal.SIGKILL
        assert [s["engines"] for s in wait_for_engines(procs, 3)] == [3] * 3

        for p in procs[:2]:
            p.send_signal(signal.SIGKILL)
            p.wait()
        last = wait_for_engines(procs[2:], 1)[0]
        assert (last["engines"], last["helpers"]) == (1, 3)  # its whole share back
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_the_engines_own_helpers_fill_its_buffers_alone_for_the_limit_model():
    # Issue #58's model takes the helpers' fill rate from the engine's own C++ helpers
    # (tests/bench/bench_module/limit.py): every byte filled once per copy, a piece at a time.
    mib = 1 << 20
    src = np.arange(4 * mib + 123, dtype=np.uint8)
    got = testing.fill_alone(src, helpers=2, dma=mib, piece=256 << 10, buffers=2, repeats=2)
    assert got["to_device_bytes"] == 3 * src.nbytes  # the untimed copy and two timed ones
    assert got["pieces"] == 3 * 17  # 16 full pieces of 256 KiB and one of 123 bytes per copy
    assert got["copied_bytes"] == 2 * src.nbytes
    assert got["helpers"] == 2
    assert 0 < got["seconds"] and 0 < got["copying_s"]
