#include "results/record.hpp"
#include "results/run_result.hpp"

namespace xfer {

const char* to_string(DeviceTiming t) {
    switch (t) {
        case DeviceTiming::none: return "none";
        case DeviceTiming::events: return "events";
        case DeviceTiming::cupti: return "cupti";
    }
    return "?";
}

const char* to_string(RunStatus s) {
    switch (s) {
        case RunStatus::ok: return "ok";
        case RunStatus::failed: return "failed";
        case RunStatus::interrupted: return "interrupted";
        case RunStatus::skipped: return "skipped";
    }
    return "?";
}

}  // namespace xfer
