"""xferlab.torch: host arrays and CPU tensors to PyTorch CUDA tensors through xferlab's staging
engine."""
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import torch


def to_device(a: Any, device: Union[str, int, "torch.device"]) -> "torch.Tensor":
    """Like torch.as_tensor(a).to(device) for a NumPy array or a CPU tensor: a tensor of its
    shape and dtype on `device` ("cuda:1", torch.device, or an index), its bytes moved with
    xferlab.copy on the device's current stream."""
    try:
        import torch
    except ImportError as e:
        raise ImportError("xferlab.torch needs PyTorch (pip install torch)") from e
    import numpy

    import xferlab

    if isinstance(a, torch.Tensor):
        host = a.contiguous()
    else:
        host = torch.from_numpy(numpy.ascontiguousarray(a))
    dev = torch.device(device) if not isinstance(device, int) else torch.device("cuda", device)
    out = torch.empty(host.shape, dtype=host.dtype, device=dev)
    xferlab.copy(out, host, stream=torch.cuda.current_stream(dev))
    return out
