// results/serialize.cpp: every field survives to_json -> from_json exactly; enums are strings;
// broken input fails loudly instead of turning into zeros.
#include <cstdint>
#include <limits>

#include "results/serialize.hpp"
#include "support/catch.hpp"
#include "test_results_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
using xfer::testing::full_record;
using xfer::testing::full_run;
using xfer::testing::full_thread_info;

namespace {

void check_same(const Record& a, const Record& b) {
    CHECK(a.run == b.run);
    CHECK(a.worker == b.worker);
    CHECK(a.repetition == b.repetition);
    CHECK(a.warmup == b.warmup);
    CHECK(a.device == b.device);
    CHECK(a.bytes == b.bytes);
    CHECK(a.host_start_ns == b.host_start_ns);
    CHECK(a.host_end_ns == b.host_end_ns);
    CHECK(a.device_start_ns == b.device_start_ns);
    CHECK(a.device_end_ns == b.device_end_ns);
    CHECK(a.device_timing == b.device_timing);
    CHECK(a.correlation == b.correlation);
    CHECK(a.context == b.context);
    CHECK(a.stream == b.stream);
    CHECK(a.tid == b.tid);
    CHECK(a.cpu == b.cpu);
    CHECK(a.pid == b.pid);
    CHECK(a.between_ns == b.between_ns);
    CHECK(a.copy_kind == b.copy_kind);
    CHECK(a.src_kind == b.src_kind);
    CHECK(a.dst_kind == b.dst_kind);
    CHECK(a.host_node == b.host_node);
}

}  // namespace

TEST_CASE("a record round-trips every field exactly", "[results][serialize]") {
    const Record r = full_record();
    const json j = r;
    CHECK(j.at("device_timing") == "cupti");  // enums as strings
    CHECK(j.at("size_bytes") == r.bytes);     // nvprof-like names
    CHECK(j.at("correlation_id") == r.correlation);
    CHECK(j.size() == 18);  // every field of Record, nothing else
    check_same(j.get<Record>(), r);
    // Files written before between_ns existed still read, as 0.
    json old = j;
    old.erase("between_ns");
    CHECK(old.get<Record>().between_ns == 0);
    // Through text too: 64-bit integers must not pass through a double.
    check_same(json::parse(j.dump()).get<Record>(), r);
}

TEST_CASE("each DeviceTiming value round-trips by name", "[results][serialize]") {
    for (auto t : {DeviceTiming::none, DeviceTiming::events, DeviceTiming::cupti}) {
        Record r;
        r.device_timing = t;
        const json j = r;
        CHECK(j.at("device_timing") == to_string(t));
        CHECK(j.get<Record>().device_timing == t);
    }
}

TEST_CASE("a thread info round-trips, gil_held unknown as null", "[results][serialize]") {
    ThreadInfo t = full_thread_info();
    json j = t;
    CHECK(j.at("gil_held") == false);
    ThreadInfo back = json::parse(j.dump()).get<ThreadInfo>();
    CHECK(back.launcher == t.launcher);
    CHECK(back.worker == t.worker);
    CHECK(back.pid == t.pid);
    CHECK(back.tid == t.tid);
    CHECK(back.name == t.name);
    CHECK(back.hostname == t.hostname);
    CHECK(back.stack_size == t.stack_size);
    CHECK(back.guard_size == t.guard_size);
    CHECK(back.blocked_signals == t.blocked_signals);
    CHECK(back.cpus == t.cpus);
    CHECK(back.policy == t.policy);
    CHECK(back.priority == t.priority);
    CHECK(back.nice == t.nice);
    CHECK(back.numa_node == t.numa_node);
    CHECK(back.python_thread == t.python_thread);
    REQUIRE(back.gil_held.has_value());
    CHECK(*back.gil_held == false);

    t.gil_held.reset();
    j = t;
    CHECK(j.at("gil_held").is_null());
    CHECK_FALSE(j.get<ThreadInfo>().gil_held.has_value());
}

TEST_CASE("a helper thread round-trips with its busy spans, without them it reads as none",
          "[results][serialize]") {
    HelperThread h;
    h.thread = full_thread_info();
    h.thread.launcher = "staging (device 0)";
    h.busy = {{100, 250}, {400, 900}};
    h.busy_dropped = 3;
    h.work = {7, 7 << 20, 1100, 22, 333};
    json j = h;
    HelperThread back = json::parse(j.dump()).get<HelperThread>();
    CHECK(back.thread.launcher == "staging (device 0)");
    CHECK(back.thread.tid == h.thread.tid);
    CHECK(back.busy == h.busy);
    CHECK(back.busy_dropped == 3);
    CHECK(back.work.chunks == 7);
    CHECK(back.work.copied_bytes == 7 << 20);
    CHECK(back.work.copy_ns == 1100);
    CHECK(back.work.start_ns == 22);
    CHECK(back.work.wait_ns == 333);
    // Written before helpers counted their work: none.
    j.erase("work");
    CHECK(j.get<HelperThread>().work.empty());
    // results.json written before the spans: a plain ThreadInfo.
    json old = h.thread;
    HelperThread from_old = old.get<HelperThread>();
    CHECK(from_old.thread.tid == h.thread.tid);
    CHECK(from_old.busy.empty());
    CHECK(from_old.busy_dropped == 0);
}

TEST_CASE("a run result round-trips with status as a string", "[results][serialize]") {
    const RunResult r = full_run();
    const json j = r;
    CHECK(j.at("status") == "failed");
    const RunResult back = json::parse(j.dump()).get<RunResult>();
    CHECK(back.position == r.position);
    CHECK(back.position.trial == 3);
    CHECK(back.backend_used == r.backend_used);
    CHECK(back.settings == r.settings);
    CHECK(back.status == r.status);
    CHECK(back.errors == r.errors);
    CHECK(back.notes == r.notes);
    CHECK(back.start_ns == r.start_ns);
    CHECK(back.end_ns == r.end_ns);
    REQUIRE(back.records.size() == 4);
    check_same(back.records[0], r.records[0]);
    check_same(back.records[1], r.records[1]);
    check_same(back.records[3], r.records[3]);  // a watched copy's kinds and host node
    CHECK(j.at("records")[3].at("copy_kind") == "DtoH");
    CHECK(j.at("records")[3].at("src_kind") == "device");
    CHECK(j.at("records")[3].at("dst_kind") == "pinned");
    CHECK(j.at("records")[3].at("host_node") == 1);
    CHECK(!j.at("records")[0].contains("copy_kind"));  // xferlab's own copies: no kinds
    // A w.timed() block keeps its label index, calls, GIL evidence and failure.
    CHECK(back.records[2].source == 2);
    CHECK(back.records[2].device_calls == 3);
    CHECK(back.records[2].gil_held_calls == 1);
    CHECK(back.records[2].failed);
    CHECK(back.records[2].gap == r.records[2].gap);
    CHECK(back.records[2].gap.python_ns == r.records[2].host_start_ns - 200);
    CHECK_FALSE(back.records[0].gap.has_stages());  // none taken: no "gap" key at all
    CHECK_FALSE(json(r.records[0]).contains("gap"));
    CHECK(!j.at("records")[0].contains("source"));  // xferlab's routine: no timed-block keys
    CHECK(back.copy_sources == r.copy_sources);
    REQUIRE(back.device_copies.size() == 2);
    CHECK(back.device_copies[1].end_ns == r.device_copies[1].end_ns);
    CHECK(back.device_copies[1].src == "pageable");
    CHECK(back.payload_verified == r.payload_verified);
    REQUIRE(back.threads_info.size() == 2);
    CHECK(back.threads_info[0].cpus == r.threads_info[0].cpus);
    REQUIRE(back.host_activity);
    CHECK(back.host_activity->others_cpus == 1.125);
    CHECK(back.host_activity->steal_fraction == 0.0625);
    CHECK(back.host_activity->window_ns == 2'500'000'000);
    CHECK(back.host_activity->span == "copies");
    // Results written before it was recorded: none, not zeros.
    json old = j;
    old.erase("host_activity");
    CHECK_FALSE(old.get<RunResult>().host_activity);
    // The whole object: a second trip changes nothing.
    CHECK(json(back) == j);
}

TEST_CASE("each RunStatus value round-trips by name", "[results][serialize]") {
    for (auto s : {RunStatus::ok, RunStatus::failed, RunStatus::interrupted, RunStatus::skipped}) {
        RunResult r;
        r.status = s;
        const json j = r;
        CHECK(j.at("status") == to_string(s));
        CHECK(j.get<RunResult>().status == s);
    }
}

TEST_CASE("results round-trip with environment and scenario", "[results][serialize]") {
    Results res;
    res.schema_version = 1;
    res.tool_version = "0.1.0";
    res.git_describe = "v0.1.0-3-gabcdef";
    // A key this xferlab does not know ("cores") and a known one of another type (numa_nodes
    // as text) come back as they were written.
    const json host = {{"cpu_model", "Xeon"}, {"cores", 16},
                       {"numa_nodes", "1"},   {"kernel", "L"},
                       {"logical_cpus", 16},  {"python", {{"started", false}}}};
    res.host = host_from_json(host);
    REQUIRE(res.host);
    CHECK(res.host->cpu_model == "Xeon");
    CHECK(res.host->logical_cpus == 16);
    CHECK_FALSE(res.host->numa_nodes);
    CHECK(res.host->other == json({{"cores", 16}, {"numa_nodes", "1"}}));
    CHECK(host_json(res.host) == host);
    const json devices = {{"cuda",
                           {{"available", true},
                            {"device_count", 2},
                            {"summary", "2 devices"},
                            {"devices", json::array({{{"name", "H200"}}})}}}};
    res.devices = devices_from_json(devices);
    REQUIRE(res.devices);
    REQUIRE(res.devices->size() == 1);
    CHECK(res.devices->at(0).backend == "cuda");
    CHECK(res.devices->at(0).available == true);
    CHECK(res.devices->at(0).device_count == 2);
    CHECK(res.devices->at(0).summary == "2 devices");
    CHECK(devices_json(res.devices) == devices);
    res.scenario = json{{"scenario", {{"name", "seed"}}}, {"transfer", {{"bytes", "2GiB"}}}};
    res.runs = {full_run(), RunResult{}};
    res.interrupted = true;
    res.started_wall_ns = 1'732'900'000'000'000'000;
    CHECK_FALSE(json(res).contains("notes"));  // results as `run` wrote them have none
    res.notes = {"journal.jsonl: its last line is incomplete", "second"};
    const json j = res;
    const Results back = json::parse(j.dump()).get<Results>();
    CHECK(back.schema_version == 1);
    CHECK(back.tool_version == res.tool_version);
    CHECK(back.git_describe == res.git_describe);
    CHECK(back.host == res.host);
    CHECK(back.devices == res.devices);
    CHECK(back.scenario == res.scenario);
    CHECK(back.interrupted);
    CHECK(back.started_wall_ns == res.started_wall_ns);
    CHECK(back.notes == res.notes);
    REQUIRE(back.runs.size() == 2);
    check_same(back.runs[0].records[0], res.runs[0].records[0]);
    CHECK(json(back) == j);
}

TEST_CASE("host and devices are null where not recorded, refused where not an object",
          "[results][serialize]") {
    const json j = Results{};  // as results read from a journal without a plan line
    CHECK(j.at("host").is_null());
    CHECK(j.at("devices").is_null());
    const Results back = j.get<Results>();
    CHECK_FALSE(back.host);
    CHECK_FALSE(back.devices);
    json bad = j;
    bad["devices"] = json::array();
    CHECK_THROWS_WITH(bad.get<Results>(), "devices is array, not an object as xferlab writes it");
}

TEST_CASE("an older file's run keys stand in where its settings lack a key",
          "[results][serialize]") {
    const RunResult r = full_run();
    json j = r;
    json& s = j.at("settings");
    for (const char* key : {"index", "label", "sweep_point", "scaling_key", "trial", "position",
                            "base_label", "launcher"})
        s.erase(key);
    for (const char* key : {"bytes", "bytes_text", "direction", "host_memory"})
        s.at("transfer").erase(key);
    s.at("threads").erase("count");
    const RunResult back = json::parse(j.dump()).get<RunResult>();
    CHECK(back.position.index == r.position.index);
    CHECK(back.position.label == r.position.label);
    CHECK(back.position.sweep_point == r.position.sweep_point);
    CHECK(back.position.scaling_key == r.position.scaling_key);
    CHECK(back.position.trial == 3);
    CHECK(back.position.base_label == r.position.base_label);
    CHECK_FALSE(back.position.trials_recorded);
    CHECK(back.position.slot == r.position.index);  // before trials the two were one
    CHECK(back.settings.launcher == "python");
    CHECK(back.settings.threads.count == 2);
    CHECK(back.settings.transfer.bytes == uint64_t(7) << 30);
    CHECK(back.settings.transfer.direction == Direction::h2d);
    CHECK(back.settings.transfer.host_memory == HostMemory{HostMemoryKind::numa, 1});
    // Still unrecorded: the report says so, and writing the run back leaves them out again.
    CHECK(back.settings.unrecorded.count("transfer.bytes") == 1);
    CHECK(back.settings.unrecorded.count("launcher") == 1);
    const json again = back;
    CHECK_FALSE(again.at("settings").contains("launcher"));
    CHECK_FALSE(again.at("settings").contains("trial"));
    CHECK_FALSE(again.at("settings").at("transfer").contains("bytes"));
    for (const char* key :
         {"index", "label", "launcher", "backend", "threads", "bytes_per_copy", "direction",
          "host_memory", "sweep_point", "scaling_key", "trial", "base_label"})
        CHECK(again.at(key) == j.at(key));
}

TEST_CASE("a watched copy's kind that CUPTI does not name is refused, naming the key",
          "[results][serialize]") {
    json watched = full_run().records[3];
    watched["copy_kind"] = "sideways";
    CHECK_THROWS_WITH(watched.get<Record>(),
                      "copy_kind \"sideways\" is not one of HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, "
                      "DtoA, DtoD, HtoH, PtoP");
    watched["copy_kind"] = "HtoD";
    watched["src_kind"] = "swap";
    CHECK_THROWS_WITH(watched.get<Record>(),
                      "src_kind \"swap\" is not one of pageable, pinned, device, array, managed, "
                      "device_static, managed_static, unknown");
    // A memory kind CUPTI did not know is one of its kinds: it reads back as such.
    watched["src_kind"] = "unknown";
    CHECK(watched.get<Record>().src_kind == 0);
    // host_node alone (an xferlab worker's copy): no kinds.
    json own = full_record();
    own["host_node"] = 0;
    const Record r = own.get<Record>();
    CHECK(r.host_node == 0);
    CHECK(!r.watched());
}

TEST_CASE("unknown enum names and missing keys are errors", "[results][serialize]") {
    json j = full_record();
    j["device_timing"] = "nvprof";
    CHECK_THROWS(j.get<Record>());

    json run = full_run();
    run["status"] = "done";
    CHECK_THROWS(run.get<RunResult>());

    json missing = full_record();
    missing.erase("host_end_ns");
    CHECK_THROWS(missing.get<Record>());
}

TEST_CASE("a record's gap holds the stamps taken and the counters read, and nothing else",
          "[results][serialize]") {
    Record r;
    r.gap.entry_ns = 1'700'000'000'123'456'789;
    r.gap.counters[size_t(ThreadCounter::voluntary_switches)] = 2;
    r.gap.counters[size_t(ThreadCounter::page_faults)] = 0;  // read, counted nothing
    const json g = json(r).at("gap");
    CHECK(g == json::parse(R"({"entry_ns": 1700000000123456789,
                               "counters": {"voluntary_switches": 2, "page_faults": 0}})"));
    CHECK(json(r).get<Record>().gap == r.gap);
    CHECK(json(Record{}).get<Record>().gap.empty());

    auto refusal = [](const char* text) {
        try {
            gap_from_json(json::parse(text));
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(read without an error)");
    };
    CHECK(refusal(R"({"exit_ns": 5})") == "gap: unknown key 'exit_ns'");
    CHECK(refusal(R"({"entry_ns": -5})") ==
          "gap.entry_ns: expected an integer from 0 to 9223372036854775807, got -5");
    CHECK(refusal(R"({"counters": {"cache_misses": 1}})") ==
          "gap.counters: unknown counter 'cache_misses'");
    CHECK(refusal(R"({"counters": {"cycles": 4294967295}})") ==
          "gap.counters.cycles: expected an integer from 0 to 4294967294, got 4294967295");
    CHECK(refusal(R"({"counters": [1]})") == "gap.counters: expected an object, got [1]");
    CHECK(refusal("[]") == "gap: expected an object, got []");
    // In a results file, the record says which.
    json rec = json(r);
    rec["gap"] = json::parse(R"({"attached_ns": "soon"})");
    try {
        rec.get<Record>();
        FAIL("read without an error");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()) ==
              "gap.attached_ns: expected an integer from 0 to 9223372036854775807, got \"soon\"");
    }
}
