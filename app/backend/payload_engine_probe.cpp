#include "backend/payload_engine_probe.hpp"

#ifdef XFER_HAVE_CUDA
#include "backend/correlating_probe.hpp"
#include "backend/cuda/correlation_slot.hpp"
#include "backend/cuda/cupti_tracer.hpp"
#endif

namespace xfer {

std::shared_ptr<StatsProbe> payload_engine_probe(int helpers) {
#ifdef XFER_HAVE_CUDA
    // Set up before any worker starts, or not in this process at all.
    if (!cuda::CuptiTracer::instance().ready()) return nullptr;
    return std::make_shared<CorrelatingProbe>(
        helpers, CorrelatingProbe::Sources{.correlation = &cuda::correlation::take,
                                           .caller_tag = &cuda::CuptiTracer::open_capture_tag,
                                           .hand_over = &cuda::CuptiTracer::join_to_capture});
#else
    (void)helpers;
    return nullptr;
#endif
}

}  // namespace xfer
