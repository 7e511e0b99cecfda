#pragma once
// A host copy whose destination is written with non-temporal (streaming) stores, for the staging
// engine's helpers (transfer.path = "staged", [staging] stores). An ordinary store first reads
// the destination line into the cache (a read-for-ownership) and later writes it back; a
// streaming store writes the whole line to memory without reading it, so a copy into memory that
// is not read again soon costs one read and one write per byte instead of two reads and a write.
// Host only: nothing here knows about a device.
#include <cstddef>

namespace xfer {

// How a copy writes its destination.
enum class HostStores { cached, streaming };

const char* to_string(HostStores stores);

// Copies `n` bytes like std::memcpy (the ranges must not overlap), writing every whole 64-byte
// line of `dst` with streaming stores (SSE2, which every x86-64 has) and the unaligned head and
// tail with memcpy; ends with a store fence so that whoever reads `dst` next (a DMA engine, or
// another thread after the caller signals it) sees every byte. Copies shorter than a few lines
// are a plain memcpy. On other architectures: std::memcpy.
void copy_streaming(void* dst, const void* src, size_t n);

// copy_streaming for HostStores::streaming, std::memcpy for cached.
void host_copy(HostStores stores, void* dst, const void* src, size_t n);

// Whether copy_streaming uses streaming stores on this build (false: it is memcpy).
bool has_streaming_stores();

}  // namespace xfer
