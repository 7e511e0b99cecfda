#pragma once
// Whether the calling thread holds the GIL, asked from backend code that must not depend on
// Python (the CUPTI callback inside a framework's copy). The embed layer installs the probe
// when it starts the interpreter; without one the answer is "unknown".
namespace xfer {

using GilProbe = int (*)();  // 1: held, 0: not held

void set_gil_probe(GilProbe probe) noexcept;
// 1 held, 0 not held, -1 unknown (no interpreter in this process).
int gil_held_by_caller() noexcept;

}  // namespace xfer
