#pragma once
// The host side, byte count and copy kind that a memcpy API call names, read from the
// parameters CUPTI hands its callback, for the calls whose parameter structs are known here
// (cudaMemcpy, cudaMemcpyAsync and their per-thread-stream forms; cuMemcpyHtoD* and
// cuMemcpyDtoH*). Other calls keep "unknown": their copies are still recorded, only their
// host pages are not sampled.
#include <cupti.h>

#include "watch/capture.hpp"

namespace xfer::watch {

void read_call_parameters(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                          ApiCall& call);

}  // namespace xfer::watch
