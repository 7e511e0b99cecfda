// The GIL policy, observed rather than assumed. A canary thread (pure Python) samples the
// clock while worker 0 copies 64 MiB buffers. A sample inside a copy's [host_start, host_end]
// window was taken by the canary while the copying thread was inside Worker::copy_once: it
// proves that the copy ran without the GIL. With gil = "hold" the copying thread holds the GIL
// for the whole w.copy() call, so no sample can fall inside a copy: the count is exactly 0.
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "test_python_support.hpp"

using namespace xfer;
using xfer::test::PyHarness;
using xfer::test::read_text;
using xfer::test::repo_payloads;
using xfer::test::temp_payload_dir;

namespace {

struct CanaryResult {
    int64_t inside = 0;   // canary samples inside copy windows
    int64_t samples = 0;  // canary samples in all
    size_t copies = 0;
};

CanaryResult run_canary(PyHarness& h) {
    const auto out = temp_payload_dir() / "canary.json";
    h.run.settings.params["samples_out"] = out.string();
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    const auto j = nlohmann::json::parse(read_text(out));
    const auto& records = h.workers[0]->records();
    // The payload's windows are the records the native routine wrote.
    REQUIRE(j["windows"].size() == records.size());
    CanaryResult r;
    r.copies = records.size();
    r.samples = j["samples"].get<int64_t>();
    for (size_t k = 0; k < records.size(); ++k) {
        const Record& rec = records[k];
        CHECK(j["windows"][k][0].get<int64_t>() == rec.host_start_ns);
        CHECK(j["windows"][k][1].get<int64_t>() == rec.host_end_ns);
        r.inside += j["inside_per_copy"][k].get<int64_t>();
        for (const auto& s : j["inside_examples"][k]) {
            CHECK(s.get<int64_t>() >= rec.host_start_ns);
            CHECK(s.get<int64_t>() <= rec.host_end_ns);
        }
    }
    return r;
}

}  // namespace

TEST_CASE("GIL canary: with gil = release a Python thread runs during the copies",
          "[python][gil]") {
    PyHarness h(repo_payloads(), "canary.py", 1, /*repetitions=*/4, /*warmup=*/0, 64ull << 20);
    h.run.settings.gil = GilPolicy::release;
    // On a loaded machine the canary may wait for a CPU: copy on until it got one (bounded).
    h.run.settings.params["until_inside"] = true;
    h.run.settings.params["max_copies"] = 64;
    CanaryResult r = run_canary(h);
    INFO("copies " << r.copies << ", samples " << r.samples);
    CHECK(r.inside > 0);
    REQUIRE(h.info(0).gil_held.has_value());
    CHECK_FALSE(*h.info(0).gil_held);  // observed inside the copy call
    CHECK(h.workers[0]->transfer().verify() == -1);
}

TEST_CASE("GIL canary: with gil = hold no Python thread runs during a copy", "[python][gil]") {
    PyHarness h(repo_payloads(), "canary.py", 1, /*repetitions=*/6, /*warmup=*/0, 64ull << 20);
    h.run.settings.gil = GilPolicy::hold;
    CanaryResult r = run_canary(h);
    CHECK(r.copies == 6);
    CHECK(r.samples > 0);  // the canary ran: between the copies
    CHECK(r.inside == 0);
    REQUIRE(h.info(0).gil_held.has_value());
    CHECK(*h.info(0).gil_held);
}

TEST_CASE("host+gil: host threads attach and hand the GIL off around each copy", "[python][gil]") {
    for (GilPolicy gil : {GilPolicy::release, GilPolicy::hold}) {
        PyHarness h({}, "", 2, /*repetitions=*/3, /*warmup=*/1);
        h.run.settings.gil = gil;
        h.launch("host+gil");
        INFO("gil " << to_string(gil) << "\n" << h.all_errors());
        REQUIRE(h.errors.empty());
        for (int i = 0; i < 2; ++i) {
            CHECK(h.copies(i) == 4);
            const ThreadInfo& t = h.info(i);
            CHECK(t.launcher == "host+gil");
            CHECK(t.name == "xfer-hgil-" + std::to_string(i));
            CHECK_FALSE(t.python_thread);
            REQUIRE(t.gil_held.has_value());
            CHECK(*t.gil_held == (gil == GilPolicy::hold));
            CHECK(t.tid != getpid());
            for (const Record& r : h.workers[size_t(i)]->records()) CHECK(r.tid == t.tid);
            CHECK(h.workers[size_t(i)]->transfer().verify() == -1);
        }
    }
}
