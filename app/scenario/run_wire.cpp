// Enums travel as their numeric values and are range-checked on the way in: a worker process is
// the same executable, so only a corrupted message could hold an unknown value.
#include "scenario/run_wire.hpp"

#include <stdexcept>
#include <string>

namespace xfer {
namespace {
using json = nlohmann::json;

template <typename Enum>
Enum enum_at(const json& j, const char* key, Enum last) {
    const int v = j.at(key).get<int>();
    if (v < 0 || v > int(last))
        throw std::runtime_error(std::string("run message: ") + key + " out of range");
    return Enum(v);
}

json transfer_wire(const TransferSpec& t) {
    return {{"direction", int(t.direction)},
            {"bytes", t.bytes},
            {"host_memory", int(t.host_memory.kind)},
            {"numa_node", t.host_memory.numa_node},
            {"first_touch", int(t.first_touch)},
            {"devices", t.devices},
            {"api", int(t.api)},
            {"stream", int(t.stream)},
            {"timing", int(t.timing)},
            {"context", int(t.context)},
            {"path", int(t.path)},
            {"staging_threads", t.staging.threads},
            {"staging_chunk", t.staging.chunk},
            {"staging_buffers", t.staging.buffers},
            {"staging_affinity", int(t.staging.affinity)},
            {"staging_stores", int(t.staging.stores)},
            {"staging_taper", t.staging.taper},
            {"staging_streams", int(t.staging.streams)},
            {"staging_wait", int(t.staging.wait)},
            {"repetitions", t.repetitions},
            {"warmup", t.warmup},
            {"verify", t.verify}};
}

TransferSpec transfer_from(const json& j) {
    TransferSpec t;
    t.direction = enum_at(j, "direction", Direction::p2p);
    t.bytes = j.at("bytes").get<uint64_t>();
    t.host_memory.kind = enum_at(j, "host_memory", HostMemoryKind::numa);
    t.host_memory.numa_node = j.at("numa_node").get<int>();
    t.first_touch = enum_at(j, "first_touch", FirstTouch::none);
    t.devices = j.at("devices").get<std::vector<int>>();
    t.api = enum_at(j, "api", CopyApi::async);
    t.stream = enum_at(j, "stream", StreamKind::non_blocking);
    t.timing = enum_at(j, "timing", TimingMode::cupti);
    t.context = enum_at(j, "context", ContextKind::per_worker);
    t.path = enum_at(j, "path", CopyPath::register_);
    t.staging.threads = j.at("staging_threads").get<int>();
    t.staging.chunk = j.at("staging_chunk").get<uint64_t>();
    t.staging.buffers = j.at("staging_buffers").get<int>();
    t.staging.affinity = enum_at(j, "staging_affinity", StagingAffinity::none);
    t.staging.stores = enum_at(j, "staging_stores", StagingStores::streaming);
    t.staging.taper = j.at("staging_taper").get<bool>();
    t.staging.streams = enum_at(j, "staging_streams", StagingStreams::one);
    t.staging.wait = enum_at(j, "staging_wait", StagingWait::block);
    t.repetitions = j.at("repetitions").get<int>();
    t.warmup = j.at("warmup").get<int>();
    t.verify = j.at("verify").get<bool>();
    return t;
}

json threads_wire(const ThreadSpec& t) {
    return {{"count", t.count},
            {"start", int(t.start.kind)},
            {"stagger_ns", t.start.stagger_ns},
            {"stack_size", t.stack_size},
            {"guard_size", t.guard_size},
            {"signal_mask", int(t.signal_mask.kind)},
            {"signals", t.signal_mask.signals},
            {"affinity", int(t.affinity.kind)},
            {"cpus", t.affinity.cpus},
            {"policy", int(t.policy.policy)},
            {"priority", t.policy.priority},
            {"between", int(t.between.kind)},
            {"sleep_ns", t.between.sleep_ns}};
}

ThreadSpec threads_from(const json& j) {
    ThreadSpec t;
    t.count = j.at("count").get<int>();
    t.start.kind = enum_at(j, "start", StartKind::staggered);
    t.start.stagger_ns = j.at("stagger_ns").get<int64_t>();
    t.stack_size = j.at("stack_size").get<uint64_t>();
    t.guard_size = j.at("guard_size").get<uint64_t>();
    t.signal_mask.kind = enum_at(j, "signal_mask", SignalMaskKind::list);
    t.signal_mask.signals = j.at("signals").get<std::vector<int>>();
    t.affinity.kind = enum_at(j, "affinity", AffinityKind::list);
    t.affinity.cpus = j.at("cpus").get<std::vector<int>>();
    t.policy.policy = enum_at(j, "policy", SchedPolicy::rr);
    t.policy.priority = j.at("priority").get<int>();
    t.between.kind = enum_at(j, "between", BetweenKind::spin);
    t.between.sleep_ns = j.at("sleep_ns").get<int64_t>();
    return t;
}

}  // namespace

json run_to_wire(const Run& run) {
    return {{"index", run.index},
            {"label", run.label},
            {"backend", run.backend},
            {"launcher", run.spec.launcher},
            {"spec_label", run.spec.label},
            {"payload", run.spec.payload},
            {"gil", int(run.spec.gil)},
            {"mimic", run.spec.mimic},
            {"overrides", run.spec.overrides},
            {"transfer", transfer_wire(run.transfer)},
            {"threads", threads_wire(run.threads)},
            {"timeout_ns", run.timeout_ns},
            {"params", run.params},
            {"sweep_point", run.sweep_point},
            {"scaling_key", run.scaling_key},
            {"trial", run.trial},
            {"position", run.position},
            {"base_label", run.base_label}};
}

Run run_from_wire(const json& j) {
    Run run;
    run.index = j.at("index").get<int>();
    run.label = j.at("label").get<std::string>();
    run.backend = j.at("backend").get<std::string>();
    run.spec.launcher = j.at("launcher").get<std::string>();
    run.spec.label = j.at("spec_label").get<std::string>();
    run.spec.payload = j.at("payload").get<std::string>();
    run.spec.gil = enum_at(j, "gil", GilPolicy::hold);
    run.spec.mimic = j.at("mimic").get<std::string>();
    run.spec.overrides = j.at("overrides");
    run.transfer = transfer_from(j.at("transfer"));
    run.threads = threads_from(j.at("threads"));
    run.timeout_ns = j.at("timeout_ns").get<int64_t>();
    run.params = j.at("params");
    run.sweep_point = j.at("sweep_point").get<std::map<std::string, std::string>>();
    run.scaling_key = j.at("scaling_key").get<std::string>();
    run.trial = j.at("trial").get<int>();
    run.position = j.at("position").get<int>();
    run.base_label = j.at("base_label").get<std::string>();
    return run;
}

}  // namespace xfer
