"""What the module's binary holds: the engine and its measurement, nothing of the harness. The
harness's engines join CUPTI records and w.timed() blocks through probes of its own
(app/backend/correlating_probe, payload_engine_probe), given to the module only where
`xferlab run` binds it; the extension module pip installs must carry none of them (issue 55)."""
import pathlib
import re
import shutil
import subprocess

import pytest

from xferlab import _core

# Names of the harness's hooks and CUPTI joining, as nm -C prints their symbols.
HARNESS = re.compile(r"timed_block_hooks|TimedBlockHooks|CorrelatingProbe|CorrelationAlias|"
                     r"payload_engine_probe|CuptiTracer|HarnessProbe|correlation::take")


def symbols():
    if shutil.which("nm") is None:
        pytest.skip("nm (binutils) is not installed")
    binary = pathlib.Path(_core.__file__)
    out = subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_the_module_holds_the_engine_and_its_measurement():
    names = symbols()
    # nm read the module's own symbols: the engine and its measuring decorator are there.
    assert any("xfer::StagingEngine::to_device" in n for n in names)
    assert any("xfer::MeasuredStagingDevice" in n for n in names)


def test_the_module_holds_no_hook_of_the_harness():
    found = sorted({n for n in symbols() if HARNESS.search(n)})
    assert found == []
