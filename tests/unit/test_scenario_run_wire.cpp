// A Run sent to a worker process arrives unchanged.
#include "scenario/loader.hpp"
#include "scenario/run_wire.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("run_from_wire(run_to_wire(run)) keeps every field", "[scenario]") {
    Scenario s = parse_scenario(R"(
[scenario]
name = "wire"
timeout = "3s"
[transfer]
direction = "d2h"
bytes = "3MiB"
host_memory = "numa:1"
first_touch = "main"
devices = [1, 0]
api = "async"
stream = "non-blocking"
timing = "events"
repetitions = 7
warmup = 2
verify = false
[staging]
stores = "streaming"
taper = true
streams = "one"
wait = "block"
[threads]
count = 5
start = "staggered:2ms"
stack_size = "1MiB"
signal_mask = ["SIGUSR1", "SIGINT"]
affinity = [0, 1]
policy = "batch"
between = "spin:1ms"
[params]
depth = 3
[sweep]
"threads.count" = [5, 6]
[[run]]
launcher = "process"
payload = "threads.py"
gil = "hold"
label = "mine"
)",
                                "wire.toml");
    std::vector<Run> plan = expand_plan(s);
    REQUIRE(plan.size() == 2);
    const Run& r = plan[1];
    Run back = run_from_wire(nlohmann::json::parse(run_to_wire(r).dump()));
    CHECK(run_to_wire(back) == run_to_wire(r));
    CHECK(to_json(back) == to_json(r));  // the readable form agrees as well
    CHECK(back.threads.count == 6);
    CHECK(back.threads.start.stagger_ns == 2'000'000);
    CHECK(back.threads.between.kind == BetweenKind::spin);  // the last kind survives the wire
    CHECK(back.threads.between.sleep_ns == 1'000'000);
    CHECK(back.transfer.devices == std::vector<int>{1, 0});
    CHECK(back.transfer.host_memory.numa_node == 1);
    CHECK(back.transfer.staging.stores == StagingStores::streaming);  // the last kind, too
    CHECK(back.transfer.staging.taper);
    CHECK(back.transfer.staging.streams == StagingStreams::one);  // the last kind, too
    CHECK(back.transfer.staging.wait == StagingWait::block);      // and here
    CHECK(back.spec.gil == GilPolicy::hold);
    CHECK(back.threads.signal_mask.signals.size() == 2);
    CHECK(back.params["depth"].get<int>() == 3);
    CHECK(back.sweep_point == r.sweep_point);
}

TEST_CASE("run_from_wire refuses an enum value out of range", "[scenario]") {
    Scenario s = parse_scenario("[[run]]\nlauncher = \"host\"\n", "wire.toml");
    nlohmann::json j = run_to_wire(expand_plan(s)[0]);
    j["transfer"]["direction"] = 99;
    std::string message;
    try {
        run_from_wire(j);
    } catch (const std::exception& e) {
        message = e.what();
    }
    CHECK(message.find("direction out of range") != std::string::npos);
}
