// python_payloads/gap_after.py and scenarios/isolate-gap.toml (what the gap after a long call is made
// of): each `during` makes one record per copy with what it did inside it, the blocks last what
// they were asked to, memcpy's bytes arrive, and a value it does not know fails the run saying so.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// One worker, 1 MiB, 3 measured records and 1 warm-up per run, `runs` as [[run]] tables.
json run_gap(const std::string& runs, const std::string& tag, CommandResult& command) {
    const fs::path dir = fresh_temp_dir(tag);
    std::ofstream(dir / "gap.toml") << "[scenario]\nname = \"gap\"\nbackend = \"host\"\n"
                                       "[transfer]\nbytes = \"1MiB\"\nrepetitions = 3\n"
                                       "warmup = 1\n[threads]\ncount = 1\n"
                                    << runs;
    command = run_command(xferlab() + " run '" + (dir / "gap.toml").string() + "' --quiet --out '" +
                          (dir / "out").string() + "'");
    return json::parse(slurp(dir / "out" / "results.json"));
}

std::string gap_run(const std::string& during, const std::string& more = "") {
    return "[[run]]\nlauncher = \"python\"\npayload = \"gap_after.py\"\nparams.during = \"" +
           during + "\"\n" + more;
}

int64_t shortest_record_ns(const json& run) {
    int64_t shortest = INT64_MAX;
    for (const auto& r : run.at("records"))
        shortest = std::min(shortest, r.at("host_end_ns").get<int64_t>() -
                                          r.at("host_start_ns").get<int64_t>());
    return shortest;
}

}  // namespace

TEST_CASE("gap_after.py: a record per copy, doing what `during` says inside it",
          "[integration][payloads]") {
    CommandResult command;
    const json results = run_gap(gap_run("copy") + gap_run("memcpy") +
                                     gap_run("spin", "params.hold_ms = 3\n") +
                                     gap_run("sleep", "params.hold_ms = 3\n") +
                                     gap_run("memcpy", "params.evict_bytes = 4096\n"),
                                 "gap-after", command);
    INFO(command.err);
    REQUIRE(command.exit_code == 0);
    const json& runs = results.at("runs");
    REQUIRE(runs.size() == 5);
    for (const auto& run : runs) {
        INFO(run.at("label").get<std::string>() << " " << run.at("notes").dump());
        CHECK(run.at("status") == "ok");
        CHECK(run.at("records").size() == 4);  // 1 warm-up + 3
    }
    // w.copy(): xferlab's routine, verified by xferlab; the others are the payload's blocks.
    CHECK_FALSE(runs[0].contains("copy_sources"));
    CHECK(runs[1].at("copy_sources") == json::array({"memcpy"}));
    CHECK(runs[2].at("copy_sources") == json::array({"spin"}));
    CHECK(runs[3].at("copy_sources") == json::array({"sleep"}));
    // The memcpy's bytes arrived (the payload compares destination and source), 1 MiB or the
    // 4 KiB asked for per record.
    CHECK(runs[1].at("payload_verified") ==
          json{{"0", "destination == source after the last memcpy"}});
    CHECK(runs[1].at("records")[1].at("size_bytes") == 1 << 20);
    CHECK(runs[4].at("records")[1].at("size_bytes") == 4096);
    // A spin or a sleep of 3 ms holds every record at least that long.
    CHECK(shortest_record_ns(runs[2]) >= 3'000'000);
    CHECK(shortest_record_ns(runs[3]) >= 3'000'000);
    CHECK(contains(runs[2].at("notes").dump(), "gap_after.py: during = spin, 3 ms"));
}

TEST_CASE("gap_after.py: an unknown `during` or no hold fails its run with what it expects",
          "[integration][payloads]") {
    CommandResult command;
    const json results =
        run_gap(gap_run("nap") + gap_run("spin", "params.hold_ms = 0\n"), "gap-after-bad", command);
    CHECK(command.exit_code == 1);
    const json& run = results.at("runs")[0];
    CHECK(run.at("status") == "failed");
    CHECK(contains(run.at("errors").dump(),
                   "gap_after.py: during = 'nap': expected copy, memcpy, spin, sleep or warm"));
    const json& held = results.at("runs")[1];
    CHECK(held.at("status") == "failed");
    CHECK(contains(held.at("errors").dump(), "gap_after.py: hold_ms must be > 0, got 0"));
}

TEST_CASE("scenarios/isolate-gap.toml checks here: backend auto as host, six runs of 5 trials",
          "[integration][payloads]") {
    const auto r = run_command(xferlab() + " check '" + std::string(XFER_SOURCE_DIR) +
                               "/scenarios/isolate-gap.toml'");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "30 runs"));
    CHECK(contains(r.out, "payload gap_after.py: "));
}
