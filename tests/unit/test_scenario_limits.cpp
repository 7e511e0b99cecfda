// Absurd values the loader can judge alone are refused before anything runs, with the key and
// the reason: bytes 0 or negative, repetitions 0 or negative, thread counts outside 1..4096,
// device indices outside 0..1023, and the same values arriving through --set or a sweep.
// (What needs the machine — memory, thread limits, device counts — is the preflight's:
// tests/integration/test_cli_limits.cpp.)
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using xfer::test::contains;

using namespace xfer;

namespace {

// All diagnostics of loading and expanding `text`; empty when both succeed.
std::vector<Diagnostic> problems(const std::string& text,
                                 const std::vector<std::string>& sets = {}) {
    try {
        expand_plan(parse_scenario(text, "limits.toml", sets));
    } catch (const ScenarioError& e) {
        return e.diagnostics();
    }
    return {};
}

// The single diagnostic's key and message, "" when there is not exactly one.
std::string only(const std::string& text, const std::string& key,
                 const std::vector<std::string>& sets = {}) {
    const auto d = problems(text, sets);
    INFO(text);
    if (d.size() != 1) return "";
    INFO(format_diagnostic(d[0]));
    CHECK(d[0].key == key);
    return d[0].message;
}

}  // namespace

TEST_CASE("bytes 0 or negative is refused with the reason", "[limits]") {
    CHECK(contains(only("[transfer]\nbytes = -1\n[[run]]\n", "transfer.bytes"), "-1"));
    CHECK(contains(only("[transfer]\nbytes = \"-4KiB\"\n[[run]]\n", "transfer.bytes"), "-4KiB"));
    CHECK(contains(only("[[run]]\n", "transfer.bytes", {"transfer.bytes=0"}), "at least 1 byte"));
    // A sweep point with 0 bytes: the plan is refused, not the run skipped.
    CHECK(contains(
        only("[[run]]\n[sweep]\n\"transfer.bytes\" = [\"1MiB\", 0]\n", "sweep.transfer.bytes"),
        "at least 1 byte"));
    CHECK(problems("[transfer]\nbytes = 1\n[[run]]\n").empty());
}

TEST_CASE("repetitions 0 or negative is refused", "[limits]") {
    CHECK(contains(only("[transfer]\nrepetitions = -3\n[[run]]\n", "transfer.repetitions"),
                   "each run copies at least once"));
    CHECK(contains(only("[[run]]\n", "transfer.repetitions", {"transfer.repetitions=0"}),
                   "each run copies at least once"));
    CHECK(contains(only("[[run]]\ntransfer.repetitions = 0\n", "run[1].transfer.repetitions"),
                   "each run copies at least once"));
    CHECK(contains(only("[transfer]\nwarmup = -1\n[[run]]\n", "transfer.warmup"), ">= 0"));
}

TEST_CASE("a count above what its field holds says the range, NaN and inf are named as such",
          "[limits]") {
    // Issue 54, item 14: "expected an integer >= 1" for 4000000000, "got a float (null)" for
    // nan and inf (JSON writes both as null).
    CHECK(only("[transfer]\nrepetitions = 4000000000\n[[run]]\n", "transfer.repetitions") ==
          "expected an integer from 1 to 2147483647 (each run copies at least once); got an "
          "integer (4000000000)");
    CHECK(only("[transfer]\nwarmup = nan\n[[run]]\n", "transfer.warmup") ==
          "expected an integer >= 0; got a float (nan)");
    CHECK(contains(only("[threads]\ncount = inf\n[[run]]\n", "threads.count"),
                   "; got a float (inf)"));
    CHECK(contains(only("[[run]]\n", "threads.count", {"threads.count=-inf"}),
                   "; got a float (-inf)"));
}

TEST_CASE("threads.count outside 1..4096 is refused", "[limits]") {
    CHECK(contains(only("[threads]\ncount = 0\n[[run]]\n", "threads.count"), "from 1 to 4096"));
    CHECK(contains(only("[threads]\ncount = -2\n[[run]]\n", "threads.count"), "from 1 to 4096"));
    CHECK(contains(only("[[run]]\n", "threads.count", {"threads.count=100000"}),
                   "more than 4096 threads is a typo"));
}

TEST_CASE("device indices outside 0..1023 are refused", "[limits]") {
    CHECK(contains(only("[transfer]\ndevices = [-1]\n[[run]]\n", "transfer.devices"), "-1"));
    CHECK(contains(only("[transfer]\ndevices = [0, 1024]\n[[run]]\n", "transfer.devices"), "1024"));
    CHECK(contains(only("[transfer]\ndevices = []\n[[run]]\n", "transfer.devices"),
                   "selects nothing"));
    CHECK(problems("[transfer]\ndevices = [0, 1023]\n[[run]]\n").empty());
}

TEST_CASE("a sweep past the plan limit says how many runs it expands to", "[limits]") {
    // 101 x 100 points x 1 run: just past 10000.
    std::string text = "[[run]]\n[sweep]\n\"transfer.repetitions\" = [";
    for (int i = 1; i <= 101; ++i) text += std::to_string(i) + (i < 101 ? ", " : "]\n");
    text += "\"transfer.warmup\" = [";
    for (int i = 0; i < 100; ++i) text += std::to_string(i) + (i < 99 ? ", " : "]\n");
    const std::string msg = only(text, "sweep");
    CHECK(contains(msg, "10100 runs"));
    CHECK(contains(msg, "the limit is 10000"));
    // Exactly at the limit is allowed.
    std::string at = "[[run]]\n[sweep]\n\"transfer.repetitions\" = [";
    for (int i = 1; i <= 100; ++i) at += std::to_string(i) + (i < 100 ? ", " : "]\n");
    at += "\"transfer.warmup\" = [";
    for (int i = 0; i < 100; ++i) at += std::to_string(i) + (i < 99 ? ", " : "]\n");
    CHECK(problems(at).empty());
}

TEST_CASE("durations past a week are refused: a stagger, a gap, a timeout", "[limits]") {
    // Issue 54, item 11: staggered:9223372036s (2^63 ns) wrapped worker 1's slot negative, and
    // the worker never copied in a run called ok.
    const std::string past = "more than 7 days (604800 s), the longest duration xferlab takes";
    CHECK(contains(only("[threads]\ncount = 2\nstart = \"staggered:9223372036s\"\n[[run]]\n",
                        "threads.start"),
                   past));
    CHECK(contains(only("[threads]\nbetween = \"sleep:604801s\"\n[[run]]\n", "threads.between"),
                   past));
    CHECK(contains(only("[[run]]\n", "threads.between", {"threads.between=spin:100000000s"}),
                   past));
    CHECK(contains(only("[scenario]\ntimeout = \"9223372036s\"\n[[run]]\n", "scenario.timeout"),
                   past));
    // A week itself is taken.
    CHECK(problems("[scenario]\ntimeout = \"604800s\"\n[threads]\ncount = 2\nstart = "
                   "\"staggered:604800s\"\n[[run]]\n")
              .empty());
}
