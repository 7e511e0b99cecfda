#include "backend/cuda/host_memory.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/cuda/cuda_check.hpp"

namespace xfer::cuda {
namespace {

void release_cuda_host(void* p, uint64_t) {
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

// Unregistering memory that was never registered (a run that failed before the worker thread
// registered it) fails harmlessly: the error is cleared and the memory freed either way.
void release_registered(void* p, uint64_t) {
    if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
    std::free(p);
}

}  // namespace

HostBuffer allocate_host_memory(const HostMemory& kind, uint64_t bytes, int device, int worker) {
    const uint64_t n = bytes > 0 ? bytes : 1;
    void* p = nullptr;
    switch (kind.kind) {
        case HostMemoryKind::pageable:
        case HostMemoryKind::hugepage:
        case HostMemoryKind::numa:
            return HostBuffer::allocate(kind, bytes);
        case HostMemoryKind::pinned:
            XFER_CUDA(device, worker, cudaMallocHost(&p, n));
            return HostBuffer::adopt(p, bytes, kind, release_cuda_host);
        case HostMemoryKind::write_combined:
            XFER_CUDA(device, worker,
                      cudaHostAlloc(&p, n, cudaHostAllocWriteCombined | cudaHostAllocPortable));
            return HostBuffer::adopt(p, bytes, kind, release_cuda_host);
        case HostMemoryKind::registered: {
            const long page = sysconf(_SC_PAGESIZE);
            if (posix_memalign(&p, size_t(page > 0 ? page : 4096), n) != 0 || !p)
                throw std::runtime_error("registered: allocating " + std::to_string(n) +
                                         " bytes failed (worker " + std::to_string(worker) + ")");
            return HostBuffer::adopt(p, bytes, kind, release_registered);
        }
    }
    throw std::logic_error("allocate_host_memory: unknown host memory kind");
}

void register_host_memory(const HostBuffer& buffer, int device, int worker) {
    if (buffer.kind().kind != HostMemoryKind::registered || buffer.size() == 0) return;
    XFER_CUDA(device, worker,
              cudaHostRegister(buffer.data(), buffer.size(), cudaHostRegisterPortable));
}

}  // namespace xfer::cuda
