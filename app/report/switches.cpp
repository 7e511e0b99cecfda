#include "report/switches.hpp"

namespace xfer {

RunSettings identifying_settings(const RunSettings& s) {
    RunSettings out = s;
    const RunSettings none;
    out.index = none.index;
    out.label = none.label;
    out.timeout_ns = none.timeout_ns;
    out.sweep_point = none.sweep_point;
    out.overrides = none.overrides;
    out.scaling_key = none.scaling_key;
    out.trial = none.trial;
    out.position = none.position;
    out.base_label = none.base_label;
    out.unrecorded = none.unrecorded;
    out.threads.count = none.threads.count;
    return out;
}

}  // namespace xfer
