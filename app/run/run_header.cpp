#include "run/run_header.hpp"

#include "scenario/loader.hpp"

namespace xfer {

RunResult run_result_header(const Run& run) {
    RunResult r;
    r.index = run.index;
    r.label = run.label;
    r.launcher = run.spec.launcher;
    r.threads = run.threads.count;
    r.bytes_per_copy = run.transfer.bytes;
    r.direction = to_string(run.transfer.direction);
    r.host_memory = to_string(run.transfer.host_memory);
    r.sweep_point = run.sweep_point;
    r.scaling_key = run.scaling_key;
    r.trial = run.trial;
    r.base_label = run.base_label;
    r.settings = run_settings(run);
    return r;
}

}  // namespace xfer
