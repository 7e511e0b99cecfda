"""xferlab.cupy: host arrays to CuPy through xferlab's staging engine."""
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import cupy


def asarray(a: Any, device: Optional[int] = None) -> "cupy.ndarray":
    """Like cupy.asarray(a) for a host array: a CuPy array of a's shape and dtype on `device`
    (CuPy's current device when None), its bytes moved with xferlab.copy on CuPy's current
    stream. `a` is anything numpy.ascontiguousarray takes."""
    try:
        import cupy
    except ImportError as e:
        raise ImportError("xferlab.cupy needs CuPy (pip install cupy-cuda13x, or the CuPy of "
                          "your CUDA version)") from e
    import numpy

    import xferlab

    host = numpy.ascontiguousarray(a)
    with cupy.cuda.Device(cupy.cuda.runtime.getDevice() if device is None else device):
        out = cupy.empty(host.shape, dtype=host.dtype)
        xferlab.copy(out, host, stream=cupy.cuda.get_current_stream())
    return out
