// Names of the scenario enums as written in scenario files.
#include "scenario/scenario.hpp"

namespace xfer {

std::string to_string(Direction d) {
    switch (d) {
        case Direction::h2d:
            return "h2d";
        case Direction::d2h:
            return "d2h";
        case Direction::d2d:
            return "d2d";
        case Direction::h2h:
            return "h2h";
        case Direction::p2p:
            return "p2p";
    }
    return "?";
}

std::string to_string(const HostMemory& m) {
    switch (m.kind) {
        case HostMemoryKind::pageable:
            return "pageable";
        case HostMemoryKind::hugepage:
            return "hugepage";
        case HostMemoryKind::pinned:
            return "pinned";
        case HostMemoryKind::registered:
            return "registered";
        case HostMemoryKind::write_combined:
            return "write-combined";
        case HostMemoryKind::numa:
            return "numa:" + std::to_string(m.numa_node);
    }
    return "?";
}

std::string to_string(TrialOrder o) {
    switch (o) {
        case TrialOrder::interleaved:
            return "interleaved";
        case TrialOrder::shuffled:
            return "shuffled";
        case TrialOrder::grouped:
            return "grouped";
    }
    return "?";
}

std::string to_string(FirstTouch f) {
    switch (f) {
        case FirstTouch::worker:
            return "worker";
        case FirstTouch::main:
            return "main";
        case FirstTouch::none:
            return "none";
    }
    return "?";
}

std::string to_string(CopyApi a) {
    switch (a) {
        case CopyApi::sync:
            return "sync";
        case CopyApi::async:
            return "async";
    }
    return "?";
}

std::string to_string(StreamKind s) {
    switch (s) {
        case StreamKind::legacy:
            return "legacy";
        case StreamKind::per_thread:
            return "per-thread";
        case StreamKind::non_blocking:
            return "non-blocking";
    }
    return "?";
}

std::string to_string(ContextKind c) {
    return c == ContextKind::per_worker ? "per-worker" : "primary";
}

std::string to_string(CopyPath p) {
    switch (p) {
        case CopyPath::driver:
            return "driver";
        case CopyPath::staged:
            return "staged";
        case CopyPath::register_:
            return "register";
    }
    return "?";
}

std::string to_string(StagingAffinity a) {
    return a == StagingAffinity::none ? "none" : "gpu-local";
}

std::string to_string(StagingStores s) {
    switch (s) {
        case StagingStores::auto_:
            return "auto";
        case StagingStores::cached:
            return "cached";
        case StagingStores::streaming:
            return "streaming";
    }
    return "?";
}

std::string to_string(StagingStreams s) { return s == StagingStreams::one ? "one" : "per-helper"; }

std::string to_string(StagingWait w) { return w == StagingWait::block ? "block" : "spin"; }

std::string to_string(TimingMode t) {
    switch (t) {
        case TimingMode::auto_:
            return "auto";
        case TimingMode::host:
            return "host";
        case TimingMode::events:
            return "events";
        case TimingMode::cupti:
            return "cupti";
    }
    return "?";
}

std::string to_string(GilPolicy g) {
    switch (g) {
        case GilPolicy::release:
            return "release";
        case GilPolicy::hold:
            return "hold";
    }
    return "?";
}

std::string to_string(SchedPolicy p) {
    switch (p) {
        case SchedPolicy::other:
            return "other";
        case SchedPolicy::batch:
            return "batch";
        case SchedPolicy::idle:
            return "idle";
        case SchedPolicy::fifo:
            return "fifo";
        case SchedPolicy::rr:
            return "rr";
    }
    return "?";
}

}  // namespace xfer
