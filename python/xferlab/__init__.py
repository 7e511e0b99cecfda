"""xferlab: copies between host memory and CUDA devices at the rate of page-locked memory.

    import numpy, cupy, xferlab
    host = numpy.ones(1 << 28, dtype=numpy.float32)   # pageable memory, 1 GiB
    dev = cupy.empty_like(host)
    xferlab.copy(dev, host)                            # to the device; back: copy(host, dev)

copy() moves pageable memory through a staging engine (helper threads copying into
page-locked chunks while the DMA engine drains them), shared by every thread of the process;
the GIL is released for the whole copy. Engine(...) makes one with settings of its own.
xferlab.cupy and xferlab.torch hold small helpers. Inside `xferlab run` the same names come from
the module built into xferlab.
"""
from ._core import Engine, Error, __version__, copy

__all__ = ["copy", "Engine", "Error", "__version__"]
