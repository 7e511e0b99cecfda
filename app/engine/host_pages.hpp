#pragma once
// Faulting a copy's host pages in before the copy touches them (the staging engine's populate =
// "ahead"): memory a copy reads or writes for the first time, such as a file mapped with
// numpy.memmap, costs a page fault per page (or per fault-around block) inside the copy. These
// take the faults, or the kernel's read of the file, on a helper that would otherwise wait.
// Linux's MADV_POPULATE_READ / _WRITE (5.14) where the kernel has them; reading a byte per page
// where it has not; nothing for writing then (a write could race with the copy itself).
#include <cstddef>

namespace xfer {

// Asks the kernel to read a file behind [p, p + len) ahead, asynchronously (MADV_WILLNEED).
void advise_will_need(const void* p, size_t len);
// Maps every page of [p, p + len) for reading.
void populate_for_reading(const void* p, size_t len);
// Maps every page of [p, p + len) for writing, without changing a byte; nothing where the kernel
// cannot.
void populate_for_writing(void* p, size_t len);

}  // namespace xfer
