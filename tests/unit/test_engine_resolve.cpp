// One EngineOptions and one resolve(): what a scenario's [staging] sets and what the Python
// module's Engine() gets are the same options with the same defaults, and "auto" becomes the
// same numbers on the same device (engine/engine_resolve.hpp).
#include <string>
#include <vector>

#include "engine/engine_resolve.hpp"
#include "scenario/loader.hpp"
#include "scenario/plan.hpp"
#include "settings/setting_keys.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

// An H200-like device: a PCIe gen 5 x16 link, a memcpy probe of 10 GB/s, 16 CPUs near it.
DeviceFacts h200_like() {
    DeviceFacts f;
    f.device = 0;
    f.name = "device 0";
    f.link_gbps = 63;
    f.link_text = "PCIe gen 5 x16";
    f.memcpy_gbps = 10;
    for (int cpu = 0; cpu < 16; ++cpu) f.local_cpus.push_back(cpu);
    f.cpus = 16;
    return f;
}

// What the harness's staged run of a scenario with no [staging] keys resolves to.
EngineOptions scenario_defaults() {
    Scenario s = parse_scenario("[transfer]\npath = \"staged\"\n[[run]]\n", "staged.toml");
    const std::vector<Run> plan = expand_plan(s);
    REQUIRE(plan.size() == 1);
    return plan[0].settings.transfer.staging;
}

}  // namespace

TEST_CASE("engine options: a scenario's [staging] and the module's Engine() share defaults",
          "[engine]") {
    // The module's shared engine and Engine() without arguments are made from EngineOptions{}
    // (module/module_engine.cpp, module/engine_arguments.cpp).
    const EngineOptions module;
    CHECK(scenario_defaults() == module);
    const ResolvedEngine a = resolve(scenario_defaults(), h200_like());
    const ResolvedEngine b = resolve(module, h200_like());
    CHECK(a.note == b.note);
    CHECK(a.config.threads == b.config.threads);
    CHECK(a.config.dma_chunk == b.config.dma_chunk);
    // Every [staging] key is an option, recorded and defaulted by the option's own row.
    for (const EngineOptionRow& row : engine_option_rows()) {
        INFO(row.name);
        const SettingKey* key = find_setting_key("staging." + row.name);
        CHECK((key != nullptr) == row.scenario);
        if (key)
            CHECK(setting_value(*key, TransferSpec{}, ThreadSpec{}) == engine_option_default(row));
    }
}

TEST_CASE("engine options: auto is eight 1 MiB pieces to a DMA, four per helper, twelve helpers",
          "[engine]") {
    const ResolvedEngine r = resolve(EngineOptions{}, h200_like());
    const StagingConfig& c = r.config;
    CHECK(c.threads == 12);  // 2 x 63 / 10 = 12.6, at most 12
    CHECK((c.chunk == MiB && c.chunk_from_device == MiB));
    CHECK(c.dma_chunk == 8 * MiB);
    CHECK(c.buffers == 4);
    CHECK(staging_shares_buffers(c));
    CHECK(engine_page_locked_bytes(EngineOptions{}, 12) == 48 * MiB);
    CHECK(c.page_locked_chunk == 0);  // page-locked memory: one DMA per helper
    CHECK(c.cpus == h200_like().local_cpus);
    CHECK(c.idle_spin);
    CHECK(r.automatic_threads);
    CHECK((r.claim.automatic && r.claim.helpers == 12 && r.claim.cap == 12));
    CHECK((r.direct_below_to_device == 12 * MiB && r.direct_below_from_device == 4 * MiB));
    CHECK_FALSE(r.pageable_direct);
    CHECK_FALSE(r.measure);
}

TEST_CASE("engine options: StagingConfig's member defaults are the default engine's shape",
          "[engine]") {
    // kEngineDefaults is the one place of the numbers: StagingConfig{} (what the engine's unit
    // tests start from) is what resolve() makes of the default options with one helper.
    EngineOptions one;
    one.threads = 1;
    const StagingConfig& r = resolve(one, h200_like()).config;
    const StagingConfig d;
    CHECK(d.threads == r.threads);
    CHECK(d.buffers == r.buffers);
    CHECK(staging_chunk_of(d, true) == staging_chunk_of(r, true));
    CHECK(staging_chunk_of(d, false) == staging_chunk_of(r, false));
    CHECK(d.dma_chunk == r.dma_chunk);
    CHECK(d.idle_spin == r.idle_spin);
    CHECK(d.read_mapped_files == r.read_mapped_files);
    CHECK(d.page_locked_chunk == r.page_locked_chunk);
    CHECK(d.caller_starts == r.caller_starts);
    CHECK(d.lock_spin_ns == r.lock_spin_ns);
    CHECK(d.expect_spin_ns == r.expect_spin_ns);
    CHECK(staging_shares_buffers(d));
    CHECK(d.dma_chunk == kEngineDefaults.chunks_per_dma * kEngineDefaults.chunk);
}

TEST_CASE("engine options: explicit values are taken as given", "[engine]") {
    EngineOptions o;
    o.threads = 4;
    o.chunk = 256 << 10;
    o.buffers = 6;
    o.dma = 0;  // "chunk"
    o.affinity = StagingAffinity::list;
    o.cpus = {3, 5};
    o.wait = StagingWait::block;
    o.direct_below = 0;
    const ResolvedEngine r = resolve(o, h200_like());
    CHECK(r.config.threads == 4);
    CHECK((r.config.chunk == 256 << 10 && r.config.chunk_from_device == 256 << 10));
    CHECK(r.config.page_locked_chunk == 256 << 10);
    CHECK(r.config.buffers == 6);
    CHECK_FALSE(staging_shares_buffers(r.config));
    CHECK(r.config.cpus == std::vector<int>{3, 5});
    CHECK_FALSE(r.config.idle_spin);
    CHECK((!r.automatic_threads && !r.claim.automatic && r.claim.helpers == 4));
    CHECK((r.direct_below_to_device == 0 && r.direct_below_from_device == 0));
    // A DMA per chunk with the chunk left "auto": each direction its own.
    EngineOptions own;
    own.dma = 0;
    const ResolvedEngine per_chunk = resolve(own, h200_like());
    CHECK(per_chunk.config.chunk == 4 * MiB);
    CHECK(per_chunk.config.chunk_from_device == 2 * MiB);
    CHECK(per_chunk.config.buffers == 2);
}

TEST_CASE("engine options: pageable memory goes directly where the device reads it", "[engine]") {
    DeviceFacts grace = h200_like();
    grace.pageable_uses_host_page_tables = true;
    CHECK(resolve(EngineOptions{}, grace).pageable_direct);
    CHECK_FALSE(resolve(EngineOptions{}, h200_like()).pageable_direct);
    EngineOptions staged, direct;
    staged.pageable = PageableRoute::staged;
    direct.pageable = PageableRoute::direct;
    CHECK_FALSE(resolve(staged, grace).pageable_direct);
    CHECK(resolve(direct, h200_like()).pageable_direct);
}

TEST_CASE("engine options: helpers not pinned, or no CPUs known near the device, say so",
          "[engine]") {
    DeviceFacts far = h200_like();
    far.local_cpus.clear();
    far.local_cpus_why = "sysfs has no local_cpulist";
    const ResolvedEngine r = resolve(EngineOptions{}, far);
    CHECK(r.config.cpus.empty());
    CHECK(r.note.find("not pinned (no CPUs known local to the device: sysfs has no "
                      "local_cpulist)") != std::string::npos);
    EngineOptions none;
    none.affinity = StagingAffinity::none;
    CHECK(resolve(none, h200_like()).note.find("not pinned (staging.affinity = \"none\")") !=
          std::string::npos);
}
