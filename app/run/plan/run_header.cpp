#include "run/plan/run_header.hpp"

namespace xfer {

RunResult run_result_header(const Run& run) {
    RunResult r;
    r.settings = run.settings;
    r.position = run.position;
    return r;
}

}  // namespace xfer
