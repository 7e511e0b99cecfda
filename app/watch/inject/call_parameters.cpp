#include "watch/inject/call_parameters.hpp"

// cupti.h (through call_parameters.hpp) brings the parameter structs
// (generated_cuda_runtime_api_meta.h, generated_cuda_meta.h), which have no include guards.
#include <cuda_runtime_api.h>

namespace xfer::watch {
namespace {

// cudaMemcpyKind: 0 host to host, 1 host to device, 2 device to host, 3 device to device,
// 4 default (the pointers say). For "default" the source is sampled: move_pages reports a
// device address as not present, which the report counts as unsampled.
template <typename P>
void runtime_copy(const void* params, ApiCall& call) {
    const auto* p = static_cast<const P*>(params);
    call.bytes = p->count;
    call.memcpy_kind = uint8_t(p->kind);
    if (p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyHostToHost ||
        p->kind == cudaMemcpyDefault)
        call.host_src = p->src;
    else if (p->kind == cudaMemcpyDeviceToHost)
        call.host_dst = p->dst;
}

template <typename P>
void to_device(const void* params, ApiCall& call) {
    const auto* p = static_cast<const P*>(params);
    call.bytes = p->ByteCount;
    call.memcpy_kind = uint8_t(cudaMemcpyHostToDevice);
    call.host_src = p->srcHost;
}

template <typename P>
void from_device(const void* params, ApiCall& call) {
    const auto* p = static_cast<const P*>(params);
    call.bytes = p->ByteCount;
    call.memcpy_kind = uint8_t(cudaMemcpyDeviceToHost);
    call.host_dst = p->dstHost;
}

}  // namespace

void read_call_parameters(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                          ApiCall& call) {
    if (!params) return;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        switch (cbid) {
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
                return runtime_copy<cudaMemcpy_v3020_params>(params, call);
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
                return runtime_copy<cudaMemcpy_ptds_v7000_params>(params, call);
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
                return runtime_copy<cudaMemcpyAsync_v3020_params>(params, call);
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
                return runtime_copy<cudaMemcpyAsync_ptsz_v7000_params>(params, call);
            default:
                return;
        }
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
            return to_device<cuMemcpyHtoD_v2_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
            return to_device<cuMemcpyHtoDAsync_v2_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
            return to_device<cuMemcpyHtoD_v2_ptds_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
            return to_device<cuMemcpyHtoDAsync_v2_ptsz_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
            return from_device<cuMemcpyDtoH_v2_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
            return from_device<cuMemcpyDtoHAsync_v2_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
            return from_device<cuMemcpyDtoH_v2_ptds_params>(params, call);
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
            return from_device<cuMemcpyDtoHAsync_v2_ptsz_params>(params, call);
        default:
            return;
    }
}

}  // namespace xfer::watch
