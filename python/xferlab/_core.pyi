# Types of the extension module xferlab._core (app/module/bindings.cpp). Engine's options and
# their defaults are compared with Engine.defaults() by tests/module/test_stubs.py, so a
# new option of the engine's table fails that test until it is named here.
from types import TracebackType
from typing import Any, Literal, Optional, Sequence, TypedDict, Union

__version__: str

# A size: bytes, or text such as "1MiB".
_Size = Union[int, str]

class Error(RuntimeError):
    """A device failure during a copy."""

class OptionDefault(TypedDict):
    default: Any  # as Engine() takes it: "auto", "one", False, ...
    value: Any  # what an engine made without arguments on the device uses
    rule: Optional[str]  # what "auto" becomes ("auto: 1 MiB; ..."); None: no "auto"

def copy(dst: Any, src: Any, *, stream: Any = None) -> None: ...

class Engine:
    def __init__(
        self,
        device: int = 0,
        *,
        threads: Union[int, Literal["auto"]] = "auto",
        chunk: Union[_Size, Literal["auto"]] = "auto",
        buffers: Union[int, Literal["auto"]] = "auto",
        dma: Union[_Size, Literal["auto", "chunk"]] = "auto",
        affinity: Union[Literal["gpu-local", "none"], Sequence[int]] = "gpu-local",
        streams: Literal["per-helper", "one"] = "one",
        wait: Literal["spin", "block"] = "spin",
        mapped_files: Literal["copy", "read"] = "read",
        start: Literal["caller", "helpers"] = "helpers",
        lock: Literal["spin", "block"] = "block",
        direct_below: Union[_Size, Literal["auto"]] = "auto",
        pageable: Literal["auto", "staged", "direct"] = "auto",
        wake: Literal["call", "arrival"] = "arrival",
        measure: bool = False,
    ) -> None: ...
    @staticmethod
    def defaults(device: int = 0) -> dict[str, OptionDefault]: ...
    def copy(self, dst: Any, src: Any, *, stream: Any = None) -> None: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Engine": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...
    @property
    def device(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def note(self) -> str: ...
    @property
    def closed(self) -> bool: ...

def _shutdown() -> None: ...
