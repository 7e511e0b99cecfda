#pragma once
// What measures the Python module's engines inside xferlab run (the module's home gives it at
// bind time: embed/module.cpp): where the run traces copies with CUPTI, a probe whose DMAs join the
// w.timed() block open on the caller's thread as each copy returns (the block's capture does not
// see the helpers' calls). Elsewhere, and in a build without CUDA: none.
#include <memory>

#include "engine/stats_probe.hpp"

namespace xfer {

// The probe of a payload's engine of `helpers` helper threads; nullptr where no run's tracer is
// set up.
std::shared_ptr<StatsProbe> payload_engine_probe(int helpers);

}  // namespace xfer
