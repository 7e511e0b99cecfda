// A scenario file read into a Scenario: every key, the defaults, [params], [[run]] overrides,
// --set, and the resolved JSON written into results.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "results/serialize.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/values.hpp"

using namespace xfer;
using nlohmann::json;
using xfer::test::GiB;
using xfer::test::KiB;
using xfer::test::MiB;
using xfer::test::TiB;

namespace {

const char* const kEveryKey = R"([scenario]
name = "every-key"
description = "sets every key once"
backend = "host"
timeout = "90s"

[transfer]
direction = "d2h"
bytes = "2GiB"
host_memory = "numa:1"
first_touch = "main"
devices = [1, 0]
api = "async"
stream = "non-blocking"
timing = "events"
repetitions = 3
warmup = 0
verify = false

[threads]
count = 4
start = "staggered:250us"
stack_size = "256KiB"
signal_mask = ["SIGINT", "SIGUSR1"]
affinity = [0, 2]
policy = "rr:10"
between = "sleep:1.5ms"

[params]
switch_interval = 0.005
names = ["a", "b"]
nested = { depth = 2 }

[[run]]
launcher = "python"
label = "py"
payload = "thread_env.py"
gil = "hold"

[[run]]
launcher = "host+gil"
mimic = "python"
)";

Scenario parse(const std::string& text, const std::vector<std::string>& sets = {}) {
    return parse_scenario(text, "dir/every-key.toml", sets);
}

std::string first_error(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
        parse(text, sets);
    } catch (const ScenarioError& e) {
        return format_diagnostic(e.diagnostics().at(0));
    }
    return "";
}

}  // namespace

TEST_CASE("every key of the schema is read into the scenario", "[loader]") {
    const Scenario s = parse(kEveryKey);
    CHECK(s.source.string() == "dir/every-key.toml");
    CHECK(s.name == "every-key");
    CHECK(s.description == "sets every key once");
    CHECK(s.backend == "host");
    CHECK(s.timeout_ns == 90'000'000'000);

    const TransferSpec& t = s.transfer;
    CHECK(t.direction == Direction::d2h);
    CHECK(t.bytes == 2 * GiB);
    CHECK(t.host_memory.kind == HostMemoryKind::numa);
    CHECK(t.host_memory.numa_node == 1);
    CHECK(t.first_touch == FirstTouch::main);
    CHECK(t.devices == std::vector<int>{1, 0});
    CHECK(t.api == CopyApi::async);
    CHECK(t.stream == StreamKind::non_blocking);
    CHECK(t.timing == TimingMode::events);
    CHECK(t.repetitions == 3);
    CHECK(t.warmup == 0);
    CHECK_FALSE(t.verify);

    const ThreadSpec& th = s.threads;
    CHECK(th.count == 4);
    CHECK(th.start.kind == StartKind::staggered);
    CHECK(th.start.stagger_ns == 250'000);
    CHECK(th.stack_size == 256 * KiB);
    CHECK(th.signal_mask.kind == SignalMaskKind::list);
    CHECK(th.signal_mask.signals == std::vector<int>{SIGINT, SIGUSR1});
    CHECK(th.affinity.kind == AffinityKind::list);
    CHECK(th.affinity.cpus == std::vector<int>{0, 2});
    CHECK(th.policy.policy == SchedPolicy::rr);
    CHECK(th.policy.priority == 10);
    CHECK(th.between.kind == BetweenKind::sleep);
    CHECK(th.between.sleep_ns == 1'500'000);

    CHECK(s.params["switch_interval"] == 0.005);
    CHECK(s.params["names"] == json({"a", "b"}));
    CHECK(s.params["nested"]["depth"] == 2);

    REQUIRE(s.runs.size() == 2);
    CHECK(s.runs[0].launcher == "python");
    CHECK(s.runs[0].label == "py");
    CHECK(s.runs[0].payload == "thread_env.py");
    CHECK(s.runs[0].gil == GilPolicy::hold);
    CHECK(s.runs[1].launcher == "host+gil");
    CHECK(s.runs[1].mimic == Mimic::python);
    CHECK(s.runs[1].gil == GilPolicy::release);
}

TEST_CASE("absent keys take the documented defaults", "[loader]") {
    const Scenario s = parse("[[run]]\n");
    CHECK(s.name == "every-key");  // the file name without folder and extension
    CHECK(s.description.empty());
    CHECK(s.backend == "auto");
    CHECK(s.timeout_ns == 0);
    CHECK(s.transfer.direction == Direction::h2d);
    CHECK(s.transfer.bytes == 64 * MiB);
    CHECK(s.transfer.host_memory.kind == HostMemoryKind::pageable);
    CHECK(s.transfer.first_touch == FirstTouch::worker);
    CHECK(s.transfer.devices.empty());
    CHECK(s.transfer.api == CopyApi::sync);
    CHECK(s.transfer.stream == StreamKind::per_thread);
    CHECK(s.transfer.timing == TimingMode::auto_);
    CHECK(s.transfer.repetitions == 8);
    CHECK(s.transfer.warmup == 1);
    CHECK(s.transfer.verify);
    CHECK(s.threads.count == 1);
    CHECK(s.threads.start.kind == StartKind::barrier);
    CHECK(s.threads.stack_size == 0);
    CHECK(s.threads.signal_mask.kind == SignalMaskKind::inherit);
    CHECK(s.threads.affinity.kind == AffinityKind::none);
    CHECK(s.threads.policy.policy == SchedPolicy::other);
    CHECK(s.threads.between.kind == BetweenKind::none);
    REQUIRE(s.runs.size() == 1);
    CHECK(s.runs[0].launcher == "host");  // an empty [[run]] is a host run
    CHECK(s.runs[0].overrides.empty());
    CHECK(s.params.empty());
}

TEST_CASE("the word forms of the thread keys", "[loader]") {
    const Scenario s = parse(R"([threads]
start = "free"
stack_size = 65536
signal_mask = "block-all"
affinity = "gpu-local"
policy = "fifo:99"
between = "yield"
[transfer]
bytes = 4096
devices = "round-robin"
host_memory = "write-combined"
[scenario]
timeout = "none"
[[run]]
)");
    CHECK(s.threads.start.kind == StartKind::free);
    CHECK(s.threads.stack_size == 64 * KiB);  // an integer size is bytes
    CHECK(s.threads.signal_mask.kind == SignalMaskKind::block_all);
    CHECK(s.threads.affinity.kind == AffinityKind::gpu_local);
    CHECK(s.threads.policy.policy == SchedPolicy::fifo);
    CHECK(s.threads.policy.priority == 99);
    CHECK(s.threads.between.kind == BetweenKind::yield);
    CHECK(s.transfer.bytes == 4096u);
    CHECK(s.transfer.devices.empty());
    CHECK(s.transfer.host_memory.kind == HostMemoryKind::write_combined);
    CHECK(s.timeout_ns == 0);
}

TEST_CASE("signal names: any case, with or without SIG, realtime relative to SIGRTMIN",
          "[loader]") {
    const Scenario s = parse(
        "[threads]\nsignal_mask = [\"SIGTERM\", \"usr2\", \"SIGRTMIN+1\", \"SIGTERM\"]\n"
        "[[run]]\n");
    // Duplicates are dropped; the order is kept.
    CHECK(s.threads.signal_mask.signals == std::vector<int>{SIGTERM, SIGUSR2, SIGRTMIN + 1});
    CHECK(s.resolved["threads"]["signal_mask"] == json({"SIGTERM", "SIGUSR2", "SIGRTMIN+1"}));
}

TEST_CASE("dotted keys inside [[run]] are kept as that run's overrides", "[loader]") {
    const Scenario s = parse(R"([threads]
count = 2
[[run]]
launcher = "host"
threads.stack_size = "256KiB"
transfer.host_memory = "pinned"
[[run]]
launcher = "openmp"
threads = { count = 8, affinity = "compact" }
)");
    REQUIRE(s.runs.size() == 2);
    CHECK(s.runs[0].overrides ==
          json({{"threads.stack_size", "256KiB"}, {"transfer.host_memory", "pinned"}}));
    CHECK(s.runs[1].overrides == json({{"threads.count", 8}, {"threads.affinity", "compact"}}));
    // The scenario's own values are untouched by a run's overrides.
    CHECK(s.threads.count == 2);
    CHECK(s.threads.stack_size == 0);
    CHECK(s.transfer.host_memory.kind == HostMemoryKind::pageable);
}

TEST_CASE("set flags: --set overrides file values with the same keys and rules", "[loader][set]") {
    const Scenario s =
        parse(kEveryKey,
              {"threads.count=8", "transfer.bytes=1MiB", "transfer.host_memory=pinned",
               "transfer.verify=true", "threads.signal_mask=[\"SIGTERM\"]", "scenario.name=renamed",
               "scenario.timeout=5 s", "params.nested.depth=3", "params.extra=\"x\""});
    CHECK(s.threads.count == 8);
    CHECK(s.transfer.bytes == MiB);  // unquoted: not TOML, so taken as the text "1MiB"
    CHECK(s.transfer.host_memory.kind == HostMemoryKind::pinned);
    CHECK(s.transfer.verify);
    CHECK(s.threads.signal_mask.signals == std::vector<int>{SIGTERM});
    CHECK(s.name == "renamed");
    CHECK(s.timeout_ns == 5'000'000'000);
    CHECK(s.params["nested"]["depth"] == 3);
    CHECK(s.params["extra"] == "x");
    CHECK(s.params["switch_interval"] == 0.005);
    CHECK(s.resolved["set"].size() == 9);
}

TEST_CASE("set flags: --set wins over a run's own override of the same key", "[loader][set]") {
    const Scenario s = parse(R"([[run]]
threads.count = 2
threads.stack_size = "1MiB"
)",
                             {"threads.count=3"});
    REQUIRE(s.runs.size() == 1);
    CHECK(s.threads.count == 3);
    CHECK(s.runs[0].overrides == json({{"threads.stack_size", "1MiB"}}));
    const auto plan = expand_plan(s);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].settings.threads.count == 3);
    CHECK(plan[0].settings.threads.stack_size == MiB);
}

TEST_CASE("a later --set of the same key wins", "[loader][set]") {
    const Scenario s = parse("[[run]]\n", {"threads.count=2", "threads.count = 5"});
    CHECK(s.threads.count == 5);
}

TEST_CASE("load_scenario reads a file and names it in diagnostics", "[loader]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("xfer-scenario-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "from-disk.toml";
    {
        std::ofstream out(file);
        out << "[transfer]\nbytes = \"1KiB\"\n[[run]]\n";
    }
    const Scenario s = load_scenario(file, {"transfer.warmup=2"});
    CHECK(s.name == "from-disk");
    CHECK(s.source.string() == file.string());
    CHECK(s.transfer.bytes == KiB);
    CHECK(s.transfer.warmup == 2);

    {
        std::ofstream out(file);
        out << "[transfer]\nbytes = 0\n[[run]]\n";
    }
    try {
        load_scenario(file);
        FAIL("a zero-byte transfer was accepted");
    } catch (const ScenarioError& e) {
        REQUIRE(e.diagnostics().size() == 1);
        CHECK(e.diagnostics()[0].file == file.string());
        CHECK(std::string(e.what()).rfind(file.string() + ":2:9: error: transfer.bytes: ", 0) == 0);
    }
    std::filesystem::remove_all(dir);

    try {
        load_scenario(dir / "missing.toml");
        FAIL("a missing file was accepted");
    } catch (const ScenarioError& e) {
        CHECK(std::string(e.what()).find("cannot read the scenario file") != std::string::npos);
    }
}

TEST_CASE("load_plan's with_overrides finishes the file as read, which is not read again",
          "[loader][fit]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("xfer-scenario-reload-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "sized.toml";
    {
        std::ofstream out(file);
        out << "[transfer]\nbytes = \"1MiB\"\n[[run]]\nlauncher = \"host\"\n"
               "[[run]]\nlauncher = \"host\"\ntransfer.bytes = \"2KiB\"\n";
    }
    const LoadedPlan loaded = load_plan(file, {"transfer.warmup=3"}, {});
    const Scenario from_disk = load_scenario(file, {"transfer.warmup=3", "transfer.bytes=4096"});
    {
        std::ofstream out(file);  // what the file says now is not what was read
        out << "[transfer]\nbytes = \"8KiB\"\n[[run]]\n";
    }
    const Scenario again = loaded.with_overrides({"transfer.warmup=3", "transfer.bytes=4096"});
    CHECK(again.transfer.bytes == 4096);
    CHECK(again.transfer.warmup == 3);
    CHECK(again.resolved == from_disk.resolved);
    const std::vector<Run> plan = expand_plan(again);
    REQUIRE(plan.size() == 2);
    const std::vector<Run> expected = expand_plan(from_disk);
    REQUIRE(expected.size() == 2);
    CHECK(plan[0].settings.transfer.bytes == 4096);
    CHECK(plan[1].settings.transfer.bytes == expected[1].settings.transfer.bytes);
    CHECK(loaded.scenario.transfer.bytes == MiB);
    CHECK(load_scenario(file).transfer.bytes == 8 * KiB);
    std::filesystem::remove_all(dir);
}

TEST_CASE("the resolved scenario holds every key with defaults filled in", "[loader][json]") {
    const Scenario s = parse(R"([transfer]
bytes = "2GiB"
[threads]
stack_size = "256KiB"
start = "staggered:1.5ms"
[[run]]
launcher = "python"
payload = "threads.py"
threads.count = 2
[sweep]
"transfer.host_memory" = ["pageable", "pinned"]
)");
    const json& r = s.resolved;
    CHECK(r["source"] == "dir/every-key.toml");
    CHECK(r["scenario"] == json({{"name", "every-key"},
                                 {"description", ""},
                                 {"backend", "auto"},
                                 {"timeout", "none"},
                                 {"timeout_ns", 0},
                                 {"trials", 1},
                                 {"order", "interleaved"},
                                 {"baseline", ""}}));
    CHECK(r["transfer"] == json({{"direction", "h2d"},
                                 {"bytes", 2147483648ull},
                                 {"bytes_text", "2 GiB"},
                                 {"host_memory", "pageable"},
                                 {"first_touch", "worker"},
                                 {"devices", "round-robin"},
                                 {"api", "sync"},
                                 {"stream", "per-thread"},
                                 {"timing", "auto"},
                                 {"context", "primary"},
                                 {"path", "driver"},
                                 {"repetitions", 8},
                                 {"warmup", 1},
                                 {"verify", true}}));
    CHECK(r["staging"] == json({{"threads", "auto"},
                                {"chunk", "auto"},
                                {"chunk_bytes", 0},
                                {"buffers", "auto"},
                                {"dma", "auto"},
                                {"dma_bytes", kEngineDmaAuto},
                                {"affinity", "gpu-local"},
                                {"streams", "one"},
                                {"wait", "spin"},
                                {"mapped_files", "read"},
                                {"start", "helpers"},
                                {"lock", "block"}}));
    CHECK(r["threads"] == json({{"count", 1},
                                {"start", "staggered:1.5ms"},
                                {"start_stagger_ns", 1500000},
                                {"stack_size", 262144},
                                {"stack_size_text", "256 KiB"},
                                {"guard_size", 0},
                                {"guard_size_text", "default"},
                                {"signal_mask", "inherit"},
                                {"affinity", "none"},
                                {"policy", "other"},
                                {"between", "none"},
                                {"between_sleep_ns", 0},
                                {"gap_stages", false},
                                {"gap_counters", false}}));
    REQUIRE(r["run"].size() == 1);
    CHECK(r["run"][0] == json({{"launcher", "python"},
                               {"label", ""},
                               {"payload", "threads.py"},
                               {"gil", "release"},
                               {"mimic", ""},
                               {"overrides", {{"threads.count", 2}}},
                               {"params", json::object()}}));
    CHECK(r["sweep"] == json::parse(R"([{"key": "transfer.host_memory",
                                          "values": ["pageable", "pinned"]}])"));
    CHECK(r["plan"] == json({{"sweep_points", 2}, {"runs", 2}, {"trials", 1}}));
    CHECK(r["params"] == json::object());
    CHECK(r["set"] == json::array());
}

TEST_CASE("a run's settings as results write them: round numbers and the texts of the file",
          "[loader][json]") {
    const Scenario s = parse(R"([scenario]
timeout = "30s"
[transfer]
bytes = "7.45GB"
devices = [0, 1]
host_memory = "numa:0"
[threads]
count = 2
signal_mask = ["SIGINT"]
affinity = "scatter"
policy = "fifo:5"
between = "sleep:100us"
[params]
k = "v"
[[run]]
launcher = "host"
)");
    const auto plan = expand_plan(s);
    REQUIRE(plan.size() == 1);
    const json j = settings_json(plan[0].settings, plan[0].position);
    CHECK(j["index"] == 0);
    CHECK(j["label"] == "host");
    CHECK(j["launcher"] == "host");
    CHECK(j["backend"] == "auto");
    CHECK(j["timeout"] == "30 s");
    CHECK(j["timeout_ns"] == 30'000'000'000ll);
    CHECK(j["transfer"]["bytes"] == 7'450'000'000ull);
    CHECK(j["transfer"]["bytes_text"] == "7.45 GB");
    CHECK(j["transfer"]["devices"] == json({0, 1}));
    CHECK(j["transfer"]["host_memory"] == "numa:0");
    CHECK(j["threads"]["signal_mask"] == json({"SIGINT"}));
    CHECK(j["threads"]["affinity"] == "scatter");
    CHECK(j["threads"]["policy"] == "fifo:5");
    CHECK(j["threads"]["between"] == "sleep:100us");
    CHECK(j["threads"]["between_sleep_ns"] == 100'000);

    const Scenario spin = parse("[threads]\nbetween = \"spin:5us\"\n[[run]]\n");
    CHECK(spin.threads.between.kind == BetweenKind::spin);
    CHECK(spin.threads.between.sleep_ns == 5'000);
    CHECK(json(expand_plan(spin)[0].settings)["threads"]["between"] == "spin:5us");
    CHECK(j["params"] == json({{"k", "v"}}));
    CHECK(j["sweep_point"] == json::object());
    CHECK(j["overrides"] == json::object());
    CHECK(j["scaling_key"] == plan[0].position.scaling_key);
}

TEST_CASE("to_string names as written in files", "[loader]") {
    CHECK(to_string(Direction::p2p) == "p2p");
    CHECK(to_string(HostMemory{HostMemoryKind::write_combined, -1}) == "write-combined");
    CHECK(to_string(HostMemory{HostMemoryKind::numa, 3}) == "numa:3");
    CHECK(to_string(FirstTouch::none) == "none");
    CHECK(to_string(CopyApi::async) == "async");
    CHECK(to_string(StreamKind::per_thread) == "per-thread");
    CHECK(to_string(StreamKind::non_blocking) == "non-blocking");
    CHECK(to_string(TimingMode::auto_) == "auto");
    CHECK(to_string(GilPolicy::hold) == "hold");
    CHECK(to_string(SchedPolicy::idle) == "idle");
}

TEST_CASE("format_diagnostic and ScenarioError::what", "[loader]") {
    CHECK(format_diagnostic({"a.toml", 3, 7, "threads.count", "expected x"}) ==
          "a.toml:3:7: error: threads.count: expected x");
    CHECK(format_diagnostic({"a.toml", 0, 0, "run", "no run"}) == "a.toml: error: run: no run");
    CHECK(format_diagnostic({"a.toml", 2, 1, "", "syntax"}) == "a.toml:2:1: error: syntax");
    const ScenarioError e({{"a", 1, 2, "k", "m1"}, {"b", 3, 4, "", "m2"}});
    CHECK(std::string(e.what()) == "a:1:2: error: k: m1\nb:3:4: error: m2");
    CHECK(e.diagnostics().size() == 2);
    CHECK(first_error("[[run]]\n", {"threads.count=0"})
              .rfind("--set:1:15: error: threads.count: ", 0) == 0);
}
