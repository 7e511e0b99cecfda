// `run --fit` under a real `ulimit -v`: the plan is sized down to a power of two that then
// runs to completion under that limit (so the headroom is enough), the one line says so, and
// results.json records it; below the floor it is refused with what it needs.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {


// A host run and a Python run (the interpreter maps more after the preflight), 1 GiB copies.
fs::path fit_scenario(const fs::path& dir, int threads) {
    fs::path file = dir / "fit.toml";
    std::ofstream(file) << "[scenario]\nname = \"fit\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"1GiB\"\nrepetitions = 1\nwarmup = 0\n"
                           "[threads]\ncount = "
                        << threads
                        << "\n[[run]]\nlauncher = \"host\"\n"
                           "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\n";
    return file;
}

CommandResult run_fit(const fs::path& dir, int threads, const std::string& ulimit_kib) {
    return run_command("bash -c 'ulimit -v " + ulimit_kib + "; exec \"$0\" \"$@\"' " + xferlab() +
                       " run --fit '" + fit_scenario(dir, threads).string() + "' --out '" +
                       (dir / "out").string() + "'");
}

}  // namespace

TEST_CASE("run --fit under ulimit -v runs smaller copies and records the choice",
          "[integration][fit]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -v");
        return;
    }
    auto dir = fresh_temp_dir("fit");
    const auto r = run_fit(dir, 2, "1572864");  // 1.5 GiB; the plan as written needs 4 GiB
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, "free under the address-space limit (ulimit -v, 1.5 GiB): copies of "));
    CHECK(contains(r.err, " instead of 1 GiB"));
    const json j = json::parse(slurp(dir / "out" / "results.json"));
    const auto chosen = j["sizing"]["bytes"].get<uint64_t>();
    CHECK(j["sizing"]["reduced"].get<bool>());
    CHECK(j["sizing"]["requested_bytes"].get<uint64_t>() == (uint64_t(1) << 30));
    CHECK(chosen >= (uint64_t(64) << 20));
    CHECK(chosen < (uint64_t(1) << 30));
    CHECK((chosen & (chosen - 1)) == 0);  // a power of two
    REQUIRE(j["runs"].size() == 2);
    for (const auto& run : j["runs"]) {
        CHECK(run["status"].get<std::string>() == "ok");
        CHECK(run["bytes_per_copy"].get<uint64_t>() == chosen);
    }
    CHECK(contains(r.out, "sized for this machine (--fit): this machine has "));
    fs::remove_all(dir);
}

TEST_CASE("run --fit below the 64 MiB floor is refused with what the plan needs, exit 2",
          "[integration][fit]") {
    if (kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under ulimit -v");
        return;
    }
    auto dir = fresh_temp_dir("fitfloor");
    // 16 workers x 2 x 64 MiB = 2 GiB plus headroom, under 1.5 GiB of address space.
    const auto r = run_fit(dir, 16, "1572864");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "the plan needs 2.5 GiB (with headroom) even with copies of 64 MiB"));
    CHECK(contains(r.err, "nothing was run"));
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}

TEST_CASE("run --fit leaves a plan that fits as written alone", "[integration][fit]") {
    auto dir = fresh_temp_dir("fitfull");
    fs::path file = dir / "small.toml";
    std::ofstream(file) << "[scenario]\nname = \"small\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"1MiB\"\nrepetitions = 1\n"
                           "[[run]]\nlauncher = \"host\"\n";
    const auto r = run_command(xferlab() + " run --fit '" + file.string() + "' --quiet --out '" +
                               (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "copies of"));
    const json j = json::parse(slurp(dir / "out" / "results.json"));
    CHECK_FALSE(j["sizing"]["reduced"].get<bool>());
    CHECK(j["sizing"]["bytes"].get<uint64_t>() == (uint64_t(1) << 20));
    CHECK(j["runs"][0]["bytes_per_copy"].get<uint64_t>() == (uint64_t(1) << 20));
    fs::remove_all(dir);
}
