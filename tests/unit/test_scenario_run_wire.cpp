// A Run sent to a worker process arrives unchanged, every value of every setting key with it.
#include "scenario/loader.hpp"
#include "scenario/run_wire.hpp"
#include "settings/setting_keys.hpp"
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
dma = "chunk"
mapped_files = "read"
affinity = [2, 3]
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
    CHECK(back == r);
    CHECK(run_to_wire(back) == run_to_wire(r));  // the readable form agrees as well
    CHECK(back.settings.threads.count == 6);
    CHECK(back.settings.threads.start.stagger_ns == 2'000'000);
    CHECK(back.settings.threads.between.kind ==
          BetweenKind::spin);  // the last kind survives the wire
    CHECK(back.settings.threads.between.sleep_ns == 1'000'000);
    CHECK(back.settings.transfer.devices == std::vector<int>{1, 0});
    CHECK(back.settings.transfer.host_memory.numa_node == 1);
    CHECK(back.settings.transfer.staging.mapped_files == StagingMappedFiles::read);  // the last
    CHECK(back.settings.transfer.staging.dma == 0);
    CHECK(back.settings.transfer.staging.affinity == StagingAffinity::list);
    CHECK(back.settings.transfer.staging.cpus == std::vector<int>{2, 3});
    CHECK(back.settings.transfer.staging.streams == StagingStreams::one);  // the last kind, too
    CHECK(back.settings.transfer.staging.wait == StagingWait::block);      // and here
    CHECK(back.settings.gil == GilPolicy::hold);
    CHECK(back.settings.threads.signal_mask.signals.size() == 2);
    CHECK(back.settings.params["depth"].get<int>() == 3);
    CHECK(back.position.sweep_point == r.position.sweep_point);
    CHECK(back.position.label == "mine threads.count=6");
}

TEST_CASE("run_from_wire refuses an enum value that no xferlab writes", "[scenario]") {
    Scenario s = parse_scenario("[[run]]\nlauncher = \"host\"\n", "wire.toml");
    nlohmann::json j = run_to_wire(expand_plan(s)[0]);
    REQUIRE(j["settings"]["transfer"]["direction"] == "h2d");  // enums travel by name
    j["settings"]["transfer"]["direction"] = "sideways";
    std::string message;
    try {
        run_from_wire(j);
    } catch (const std::exception& e) {
        message = e.what();
    }
    CHECK(message.find("\"sideways\" is not a value xferlab writes") != std::string::npos);
}

TEST_CASE("run_from_wire refuses a message without one of the keys", "[scenario]") {
    Scenario s = parse_scenario("[[run]]\nlauncher = \"host\"\n", "wire.toml");
    nlohmann::json j = run_to_wire(expand_plan(s)[0]);
    j["settings"]["staging"].erase("wait");
    std::string message;
    try {
        run_from_wire(j);
    } catch (const std::exception& e) {
        message = e.what();
    }
    CHECK(message == "run message: no staging.wait");
}

namespace {

// A value of `choices` as a file writes it: an argument's placeholder becomes an example.
std::string example_value(std::string choice) {
    for (const auto& [placeholder, example] : {std::pair<std::string, std::string>{"<node>", "0"},
                                               {"<duration>", "2ms"},
                                               {"<prio>", "5"}}) {
        if (const size_t at = choice.find(placeholder); at != std::string::npos)
            choice.replace(at, placeholder.size(), example);
    }
    return nlohmann::json(choice).dump();
}

}  // namespace

TEST_CASE("every value of every setting key: file -> settings -> JSON -> wire -> settings",
          "[scenario][keys]") {
    size_t walked = 0;
    for (const SettingKey& key : setting_key_descriptors()) {
        // Each named value of an enum key (from its one table); a number, size or list: its
        // default as a file writes it.
        std::vector<std::string> values;
        for (const std::string& choice : key.values) values.push_back(example_value(choice));
        if (values.empty()) values.push_back(setting_default(key));
        for (const std::string& value : values) {
            INFO(key.dotted() << " = " << value);
            const std::string file = "[" + key.table + "]\n" + key.name + " = " + value +
                                     "\n[[run]]\nlauncher = \"process\"\n";
            const std::vector<Run> plan = expand_plan(parse_scenario(file, "roundtrip.toml"));
            REQUIRE(plan.size() == 1);
            const RunSettings& from_file = plan[0].settings;
            CHECK(from_file.unrecorded.empty());
            // results.json's form, written and read back.
            const nlohmann::json recorded = from_file;
            const auto from_results = nlohmann::json::parse(recorded.dump()).get<RunSettings>();
            CHECK(from_results == from_file);
            // The message a worker process reads.
            const Run worker = run_from_wire(nlohmann::json::parse(run_to_wire(plan[0]).dump()));
            CHECK(worker.settings == from_file);
            // A named value is recorded as the file wrote it.
            if (!key.values.empty())
                CHECK(recorded.at(key.table).at(key.name) == nlohmann::json::parse(value));
            ++walked;
        }
    }
    // Every key at least once, and the enum keys once per value.
    CHECK(walked > setting_key_descriptors().size());
}
