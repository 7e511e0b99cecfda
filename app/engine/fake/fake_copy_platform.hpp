#pragma once
// The tests' copy platform (test builds only: the fake-device Python module and the unit
// tests): host memory registered with it counts as "device memory", and its engines run on
// HostStagingDevice, so the module's copies go through the same engine code as on a GPU. Two
// fake devices; their facts resolve "auto" to 3 helpers whatever the machine.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/copy_platform.hpp"

namespace xfer {

CopyPlatform& fake_copy_platform();

// The fake's memory map: [p, p + bytes) as memory of `device` (>= 0), or page-locked host
// memory (device -1 with page_locked); unregistered host memory is pageable.
void fake_register(const void* p, uint64_t bytes, int device, bool page_locked = false);
void fake_unregister(const void* p);
// Engines the fake makes from now on fail the DMA that touches `device_byte` (nullptr: none).
void fake_fail_dma_at(const void* device_byte);
// Engines the fake makes from now on join the engine registry at `path` (a test's own file), as
// CUDA engines join the machine's; empty: none (default).
void fake_use_engine_registry(const std::string& path);
// Whether fake `device` says it reads pageable memory through the host's page tables
// (DeviceFacts::pageable_uses_host_page_tables; default: no).
void fake_set_pageable_access(int device, bool reads_pageable);
// Streams the fake waited for, in order (the tests check that a stream is waited for first).
std::vector<uintptr_t> fake_waited_streams();

}  // namespace xfer
