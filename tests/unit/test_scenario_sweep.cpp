// [sweep] x [[run]] expansion: counts, order, values, labels, precedence and scaling keys.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/values.hpp"

using namespace xfer;
using xfer::test::GiB;
using xfer::test::KiB;
using xfer::test::MiB;
using xfer::test::TiB;

namespace {

std::vector<Run> plan_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    return expand_plan(parse_scenario(text, "sweep.toml", sets));
}

const char* const kTwoBySweep = R"([threads]
count = 1
[[run]]
launcher = "host"
[[run]]
launcher = "python"
payload = "threads.py"
[sweep]
"threads.count" = [1, 2, 4]
"transfer.host_memory" = ["pageable", "pinned"]
)";

}  // namespace

TEST_CASE("no sweep: one run per [[run]], in file order", "[sweep]") {
    const auto plan = plan_of("[[run]]\nlauncher = \"openmp\"\n[[run]]\nlauncher = \"host\"\n");
    REQUIRE(plan.size() == 2);
    CHECK(plan[0].position.index == 0);
    CHECK(plan[0].settings.launcher == "openmp");
    CHECK(plan[0].position.label == "openmp");
    CHECK(plan[0].position.sweep_point.empty());
    CHECK(plan[1].position.index == 1);
    CHECK(plan[1].position.label == "host");
}

TEST_CASE("a sweep is a cartesian product, first key slowest, runs side by side", "[sweep]") {
    const auto plan = plan_of(kTwoBySweep);
    REQUIRE(plan.size() == 12);  // 3 counts x 2 memories x 2 runs
    const int counts[] = {1, 1, 2, 2, 4, 4};
    const char* memories[] = {"pageable", "pinned"};
    for (size_t i = 0; i < plan.size(); ++i) {
        INFO("run " << i << ": " << plan[i].position.label);
        const size_t point = i / 2;
        CHECK(plan[i].position.index == int(i));
        CHECK(plan[i].settings.launcher == (i % 2 == 0 ? "host" : "python"));
        CHECK(plan[i].settings.threads.count == counts[point]);
        CHECK(to_string(plan[i].settings.transfer.host_memory) == memories[point % 2]);
        CHECK(plan[i].position.sweep_point.at("threads.count") ==
              std::to_string(plan[i].settings.threads.count));
        CHECK(plan[i].position.sweep_point.at("transfer.host_memory") == memories[point % 2]);
    }
    CHECK(plan[0].position.label == "host threads.count=1 transfer.host_memory=pageable");
    CHECK(plan[1].position.label ==
          "python gil=release threads.count=1 transfer.host_memory=pageable");
    CHECK(plan[11].position.label ==
          "python gil=release threads.count=4 transfer.host_memory=pinned");
}

TEST_CASE("dotted and quoted sweep keys keep the file's order", "[sweep]") {
    // TOML groups threads.count and threads.start into one table; the plan still follows the
    // order of the lines.
    const auto plan = plan_of(R"([[run]]
[sweep]
threads.start = ["barrier", "free"]
"transfer.bytes" = ["1KiB", 2048]
threads.count = [2, 3]
)");
    REQUIRE(plan.size() == 8);
    // Slowest: threads.start; then transfer.bytes; fastest: threads.count.
    CHECK(plan[0].position.label ==
          "host threads.start=barrier transfer.bytes=1KiB threads.count=2");
    CHECK(plan[1].position.label ==
          "host threads.start=barrier transfer.bytes=1KiB threads.count=3");
    CHECK(plan[2].position.label ==
          "host threads.start=barrier transfer.bytes=2048 threads.count=2");
    CHECK(plan[4].settings.threads.start.kind == StartKind::free);
    CHECK(plan[3].settings.transfer.bytes == 2048u);
    CHECK(plan[0].settings.transfer.bytes == KiB);
    CHECK(plan[7].settings.threads.count == 3);
}

TEST_CASE("a run's own keys win over the sweep", "[sweep]") {
    const auto plan = plan_of(R"([threads]
stack_size = "1MiB"
[[run]]
launcher = "host"
[[run]]
launcher = "host"
threads.count = 8
threads.stack_size = "256KiB"
[sweep]
"threads.count" = [1, 2]
)");
    REQUIRE(plan.size() == 4);
    CHECK(plan[0].settings.threads.count == 1);
    CHECK(plan[0].settings.threads.stack_size == MiB);
    CHECK(plan[1].settings.threads.count == 8);  // the run says 8, whatever the sweep point
    CHECK(plan[3].settings.threads.count == 8);
    CHECK(plan[1].settings.threads.stack_size == 256 * KiB);
    // The sweep point is still recorded, the label shows what the run got.
    CHECK(plan[3].position.sweep_point.at("threads.count") == "2");
    CHECK(plan[1].position.label == "host threads.count=8 threads.stack_size=256KiB");
    CHECK(plan[2].position.label == "host threads.count=2");
}

TEST_CASE("set flags: --set of a swept key replaces the sweep of that key", "[sweep][set]") {
    const auto plan = plan_of(kTwoBySweep, {"threads.count=3"});
    REQUIRE(plan.size() == 4);  // only transfer.host_memory is still swept
    for (const auto& run : plan) {
        CHECK(run.settings.threads.count == 3);
        CHECK(run.position.sweep_point.count("threads.count") == 0);
    }
    CHECK(plan[0].position.label == "host transfer.host_memory=pageable");
}

TEST_CASE("a user label is kept and the sweep point appended", "[sweep]") {
    const auto plan = plan_of(R"([[run]]
label = "baseline"
[sweep]
"threads.count" = [1, 2]
)");
    REQUIRE(plan.size() == 2);
    CHECK(plan[0].position.label == "baseline threads.count=1");
    CHECK(plan[0].position.base_label == "baseline");
}

TEST_CASE("derived labels tell runs apart", "[sweep]") {
    const auto plan = plan_of(R"([[run]]
launcher = "python"
payload = "threads.py"
gil = "hold"
[[run]]
launcher = "python"
payload = "pool.py"
[[run]]
launcher = "host+gil"
[[run]]
launcher = "host"
mimic = "python"
transfer.devices = [0, 1]
)");
    REQUIRE(plan.size() == 4);
    CHECK(plan[0].position.label == "python gil=hold payload=threads.py");
    CHECK(plan[1].position.label == "python gil=release payload=pool.py");
    CHECK(plan[2].position.label == "host+gil gil=release");
    CHECK(plan[3].position.label == "host mimic=python transfer.devices=[0,1]");
    std::set<std::string> labels;
    for (const auto& r : plan) labels.insert(r.position.label);
    CHECK(labels.size() == plan.size());
}

TEST_CASE("a process with and a process without a payload get different labels", "[sweep]") {
    // scenarios/seed-processes.toml: both were labelled "process".
    const auto plan = plan_of(R"([[run]]
launcher = "python"
payload = "threads.py"
[[run]]
launcher = "process"
[[run]]
launcher = "process"
payload = "threads.py"
)");
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].position.label ==
          "python gil=release");  // the only python run: its payload is no news
    CHECK(plan[1].position.label == "process");
    CHECK(plan[2].position.label == "process payload=threads.py");
}

TEST_CASE("processes that differ only in gil say so in their labels", "[sweep]") {
    const auto plan = plan_of(R"([[run]]
launcher = "process"
payload = "threads.py"
[[run]]
launcher = "process"
payload = "threads.py"
gil = "hold"
[[run]]
launcher = "mpi"
)");
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].position.label == "process gil=release");
    CHECK(plan[1].position.label == "process gil=hold");
    CHECK(plan[2].position.label == "mpi");
}

TEST_CASE("runs nothing tells apart are numbered: #2, #3", "[sweep]") {
    // Identical [[run]] tables (a repeat), and a run overriding the only swept key.
    const auto plan = plan_of(R"([[run]]
launcher = "host"
[[run]]
launcher = "host"
[[run]]
launcher = "openmp"
threads.count = 2
[sweep]
"threads.count" = [1, 4]
)");
    REQUIRE(plan.size() == 6);
    CHECK(plan[0].position.label == "host threads.count=1");
    CHECK(plan[1].position.label == "host threads.count=1 #2");
    CHECK(plan[2].position.label == "openmp threads.count=2");
    CHECK(plan[3].position.label == "host threads.count=4");
    CHECK(plan[4].position.label == "host threads.count=4 #2");
    CHECK(plan[5].position.label == "openmp threads.count=2 #2");
}

TEST_CASE("a user's label stays as written, a derived label equal to it is numbered", "[sweep]") {
    const auto plan = plan_of(R"([[run]]
launcher = "host"
[[run]]
launcher = "openmp"
label = "host"
[[run]]
launcher = "host"
label = "host #2"
)");
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].position.label == "host #3");
    CHECK(plan[1].position.label == "host");
    CHECK(plan[2].position.label == "host #2");
}

TEST_CASE("every committed scenario expands to runs with distinct labels (per trial)", "[sweep]") {
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(
             std::filesystem::path(XFER_SOURCE_DIR) / "scenarios")) {
        if (e.path().extension() != ".toml") continue;
        ++files;
        INFO(e.path().string());
        const auto plan = expand_plan(load_scenario(e.path()));
        std::set<std::string> labels;
        for (const auto& r : plan) {
            INFO("run " << r.position.index << ": " << r.position.label);
            // A run's trials share its label and differ in trial.
            CHECK(labels.insert(r.position.label + "/" + std::to_string(r.position.trial)).second);
        }
    }
    CHECK(files >= 10);
}

TEST_CASE("runs equal but for threads.count share a scaling key", "[sweep]") {
    const auto plan = plan_of(R"([[run]]
launcher = "host"
[[run]]
launcher = "host"
label = "four threads"
threads.count = 4
[[run]]
launcher = "openmp"
[sweep]
"threads.count" = [1, 2]
"transfer.host_memory" = ["pageable", "pinned"]
)");
    REQUIRE(plan.size() == 12);
    // Runs 0 (host, 1 thread, pageable), 1 (host, 4 threads by override) and 6 (host, 2 threads,
    // pageable) differ only in thread count.
    CHECK(plan[0].position.scaling_key == plan[1].position.scaling_key);
    CHECK(plan[0].position.scaling_key == plan[6].position.scaling_key);
    CHECK(plan[0].settings.threads.count == 1);
    CHECK(plan[6].settings.threads.count == 2);
    // Another launcher or another memory kind is another scaling series.
    CHECK(plan[0].position.scaling_key != plan[2].position.scaling_key);
    CHECK(plan[0].position.scaling_key != plan[3].position.scaling_key);
    CHECK(to_string(plan[3].settings.transfer.host_memory) == "pinned");
    std::set<std::string> keys;
    for (const auto& r : plan) keys.insert(r.position.scaling_key);
    CHECK(keys.size() == 4);  // {host, openmp} x {pageable, pinned}
}

TEST_CASE("every run carries the scenario's backend, timeout and params", "[sweep]") {
    const auto plan = plan_of(R"([scenario]
backend = "host"
timeout = "2s"
[params]
depth = 3
[[run]]
[sweep]
"transfer.bytes" = ["1MiB", "2MiB"]
)");
    REQUIRE(plan.size() == 2);
    for (const auto& r : plan) {
        CHECK(r.settings.backend == "host");
        CHECK(r.settings.timeout_ns == 2'000'000'000);
        CHECK(r.settings.params["depth"] == 3);
    }
    CHECK(plan[1].settings.transfer.bytes == 2 * MiB);
}

TEST_CASE("a run's params merge over [params], name the run and part its scaling series",
          "[sweep]") {
    const auto plan = plan_of(R"([params]
first_touch = "worker"
nested = { a = 1, b = 2 }
[[run]]
launcher = "python"
payload = "threads.py"
[[run]]
launcher = "python"
payload = "threads.py"
params.batch = true
params.nested.b = 3
[[run]]
launcher = "python"
payload = "threads.py"
label = "mine"
params = { first_touch = "main" }
)");
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].settings.params == nlohmann::json::parse(R"({"first_touch": "worker",
                                                      "nested": {"a": 1, "b": 2}})"));
    // Key by key: nested.a survives, nested.b and first_touch are replaced.
    CHECK(plan[1].settings.params ==
          nlohmann::json::parse(R"({"first_touch": "worker", "batch": true,
                                                      "nested": {"a": 1, "b": 3}})"));
    CHECK(plan[2].settings.params["first_touch"] == "main");
    CHECK(plan[0].position.label == "python gil=release");
    CHECK(plan[1].position.label == "python gil=release params.batch=true params.nested.b=3");
    CHECK(plan[2].position.label == "mine");
    // Other parameters, another experiment: no thread scaling across them.
    CHECK(plan[0].position.scaling_key != plan[1].position.scaling_key);
}

TEST_CASE("params sweep like settings: nested keys, the run's own value wins, --set ends it",
          "[sweep][set]") {
    const char* const file = R"([params]
nested = { a = 1 }
[[run]]
launcher = "python"
payload = "threads.py"
[[run]]
launcher = "python"
payload = "threads.py"
params.batch = true
[sweep]
"params.batch" = [false, true]
params.nested.b = [1, 2]
)";
    const auto plan = plan_of(file);
    REQUIRE(plan.size() == 8);  // 2 x 2 sweep points x 2 [[run]] tables, the first key slowest
    CHECK(plan[0].settings.params ==
          nlohmann::json::parse(R"({"batch": false, "nested": {"a": 1, "b": 1}})"));
    CHECK(plan[2].settings.params ==
          nlohmann::json::parse(R"({"batch": false, "nested": {"a": 1, "b": 2}})"));
    CHECK(plan[4].settings.params["batch"] == true);
    CHECK(plan[0].position.sweep_point.at("params.batch") == "false");
    CHECK(plan[0].position.sweep_point.at("params.nested.b") == "1");
    CHECK(plan[0].position.label == "python gil=release params.batch=false params.nested.b=1");
    // The second table sets batch itself: the sweep does not change it, its label says so once.
    CHECK(plan[1].settings.params["batch"] == true);
    CHECK(plan[1].position.label == "python gil=release params.batch=true params.nested.b=1");
    CHECK(plan[1].position.sweep_point.at("params.batch") == "false");  // still recorded
    CHECK(plan[0].position.scaling_key != plan[4].position.scaling_key);

    const auto set = plan_of(file, {"params.batch=false", "params.nested.b=7"});
    REQUIRE(set.size() == 2);  // nothing swept any more
    for (const auto& run : set) {
        CHECK(run.settings.params ==
              nlohmann::json::parse(R"({"batch": false, "nested": {"a": 1, "b": 7}})"));
        CHECK(run.position.sweep_point.empty());
    }
}

TEST_CASE("set flags: params with bytes that are not UTF-8 expand, replaced by U+FFFD",
          "[sweep][set]") {
    // Found by fuzz_set_flags: the scaling key holds params, and dumping them threw. Since
    // issue #28 a flag is made UTF-8 where it enters (one U+FFFD per bad byte here).
    const auto plan = plan_of(kTwoBySweep, {"params.x=ab\xff\xff", "params.y=[\"\xfe\"]"});
    REQUIRE(plan.size() == 12);
    CHECK(plan[0].settings.params["x"] == "ab\xef\xbf\xbd\xef\xbf\xbd");
    CHECK(plan[0].settings.params["y"] == nlohmann::json::parse("[\"\xef\xbf\xbd\"]"));
    CHECK(plan[0].position.scaling_key.find("ab\xef\xbf\xbd\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("a swept parameter under a [params] value that is not a table is an error", "[sweep]") {
    std::string message;
    try {
        plan_of(
            "[params]\na = 1\n[[run]]\nlauncher = \"python\"\npayload = \"t.py\"\n[sweep]\n"
            "params.a.b = [1]\n");
    } catch (const ScenarioError& e) {
        message = e.what();
    }
    CHECK(message.find("params.a.b: params.a is not a table, so it cannot hold 'b'") !=
          std::string::npos);
}

TEST_CASE("exactly 10000 runs is allowed", "[sweep]") {
    std::string text = "[[run]]\n[sweep]\n\"transfer.repetitions\" = [";
    for (int i = 1; i <= 100; ++i) text += std::to_string(i) + (i < 100 ? ", " : "]\n");
    text += "\"transfer.warmup\" = [";
    for (int i = 0; i < 100; ++i) text += std::to_string(i) + (i < 99 ? ", " : "]\n");
    const auto plan = plan_of(text);
    REQUIRE(plan.size() == 10000);
    CHECK(plan.back().settings.transfer.repetitions == 100);
    CHECK(plan.back().settings.transfer.warmup == 99);
    CHECK(plan[100].settings.transfer.repetitions == 2);
    CHECK(plan[100].settings.transfer.warmup == 0);
}

TEST_CASE("expand_plan refuses a hand-built scenario past the limit", "[sweep]") {
    Scenario s;
    s.runs.resize(2);
    s.sweep.emplace_back("threads.count", nlohmann::json::array());
    for (int i = 1; i <= 5001; ++i) s.sweep.back().second.push_back(1 + i % 8);
    CHECK_THROWS_AS(expand_plan(s), ScenarioError);
    s.sweep.back().second.erase(s.sweep.back().second.begin());
    CHECK(expand_plan(s).size() == 10000);
}
