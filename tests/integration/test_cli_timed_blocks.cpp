// A payload's own copies, `with w.timed(nbytes, label):` around a NumPy copy (issue #18): one
// record of the worker per block, marked with its label; on the host backend no tracer watches
// device copies and the report says so; a block that raises is kept as failed and the traceback
// shown; misuse (nesting, w.copy() inside, another thread, too many blocks) gets a clear error; the
// payload's own verification and ctx.skip() reach the report.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// One payload, its behaviour chosen by [params] mode.
constexpr const char* kPayload = R"py(import threading
import numpy as np

def main(ctx):
    mode = ctx.params["mode"]
    if mode == "skip":
        ctx.skip("the framework is not importable here")
    if mode == "skip-empty":
        ctx.skip("")
    def work(i):
        w = ctx.worker(i)
        src = np.full(ctx.bytes, 0x5a, dtype=np.uint8)   # first touched in the worker's thread
        dst = np.zeros(ctx.bytes, dtype=np.uint8)
        w.enter()
        ctx.barrier()
        if mode == "empty-label":
            with w.timed(ctx.bytes, label=""):
                pass
        if mode == "other-thread":
            other = ctx.worker(1 - i)   # the other thread entered it
            with other.timed(ctx.bytes):
                pass
        if mode == "other-thread-copy":
            ctx.worker(1 - i).copy()    # xferlab's own copy, for the other thread's worker
        for k in range(ctx.copies + (1 if mode == "too-many" else 0)):
            with w.timed(ctx.bytes, label="numpy copyto"):
                np.copyto(dst, src)
                if mode == "raise" and k == 1:
                    raise ValueError("boom inside the block")
                if mode == "nest":
                    with w.timed(ctx.bytes):
                        pass
                if mode == "copy-inside":
                    w.copy()
        ok = bool(np.array_equal(dst, src)) if mode != "unverified-bytes" else False
        w.verified(ok, "" if mode == "empty-how" else "numpy.array_equal")
    ts = [threading.Thread(target=work, args=(i,), name=f"t{i}") for i in range(ctx.threads)]
    for t in ts: t.start()
    for t in ts: t.join()
)py";

struct Outcome {
    CommandResult cmd;
    json run;  // results.json runs[0]
};

Outcome run_mode(const std::string& mode, const std::string& launcher = "python") {
    const fs::path dir = fresh_temp_dir("timed-" + mode);
    std::ofstream(dir / "timed.py") << kPayload;
    std::ofstream(dir / "s.toml") << "[scenario]\nname = \"timed\"\nbackend = \"host\"\n"
                                     "[transfer]\nbytes = \"256KiB\"\nrepetitions = 3\nwarmup = 1\n"
                                     "[threads]\ncount = 2\n"
                                     "[[run]]\npayload = \"timed.py\"\nlauncher = \""
                                  << launcher << "\"\n[params]\nmode = \"" << mode << "\"\n";
    Outcome o;
    o.cmd =
        run_command(xferlab() + " run --full '" + (dir / "s.toml").string() + "' --payload-dir '" +
                    dir.string() + "' --out '" + (dir / "out").string() + "'");
    const json results = json::parse(slurp(dir / "out" / "results.json"));
    o.run = results.at("runs").at(0);
    return o;
}

std::string errors_of(const json& run) {
    std::string all;
    for (const auto& e : run.at("errors")) all += e.get<std::string>() + "\n";
    return all;
}

}  // namespace

TEST_CASE("w.timed blocks are records of their worker, labelled, untraced on the host backend",
          "[integration][timed]") {
    const Outcome o = run_mode("ok");
    INFO(o.cmd.err);
    CHECK(o.cmd.exit_code == 0);
    CHECK(o.run.at("status") == "ok");
    CHECK(o.run.at("copy_sources") == json::array({"numpy copyto"}));
    const json& records = o.run.at("records");
    REQUIRE(records.size() == 8);  // 2 workers x (1 warm-up + 3)
    int warm = 0;
    for (const auto& r : records) {
        CHECK(r.at("source") == 1);
        CHECK(r.at("device_calls") == -1);  // no tracer watched the block
        CHECK(r.at("failed") == false);
        CHECK(r.at("size_bytes") == 256 * 1024);
        CHECK(r.at("host_end_ns").get<int64_t>() > r.at("host_start_ns").get<int64_t>());
        warm += r.at("warmup").get<bool>() ? 1 : 0;
    }
    CHECK(warm == 2);
    CHECK(o.run.at("payload_verified") ==
          json{{"0", "numpy.array_equal"}, {"1", "numpy.array_equal"}});
    CHECK(contains(o.cmd.out,
                   "timed blocks 'numpy copyto': 8 (2 warm-up); device copies not "
                   "traced here"));
    CHECK(contains(o.cmd.out,
                   "timed blocks' bytes verified by the payload for 2 of 2 workers "
                   "(numpy.array_equal)"));
    // The figures are the blocks': 6 measured copies.
    CHECK(contains(o.cmd.out, "6 copies x 256 KiB (+2 warm-up)"));
}

TEST_CASE("a w.timed block that raises is kept as failed and the run fails with the traceback",
          "[integration][timed]") {
    const Outcome o = run_mode("raise");
    CHECK(o.cmd.exit_code == 1);
    CHECK(o.run.at("status") == "failed");
    // Each worker raises in its second block unless the other's failure stopped it first.
    int failed = 0;
    for (const auto& r : o.run.at("records"))
        if (r.at("failed") == true) {
            ++failed;
            CHECK(r.at("repetition") == 0);  // k == 1: the first measured block
        }
    CHECK(failed >= 1);
    CHECK(contains(errors_of(o.run), "ValueError: boom inside the block"));
    CHECK(contains(o.cmd.out, std::to_string(failed) + " failed)"));
}

TEST_CASE("misused w.timed blocks fail with a message that says what is wrong",
          "[integration][timed]") {
    struct Case {
        std::string mode, says;
    };
    for (const Case& c : std::vector<Case>{
             {"nest", "RuntimeError: w.timed(): blocks do not nest: worker "},
             {"copy-inside", "RuntimeError: w.copy() inside a w.timed() block"},
             {"other-thread", "RuntimeError: w.timed(): worker "},
             {"other-thread-copy", "RuntimeError: w.copy(): worker "},
             {"empty-label", "ValueError: w.timed(): the label must not be empty"},
             {"empty-how", "ValueError: w.verified(ok, how): say how the bytes were checked"},
             {"skip-empty", "ValueError: ctx.skip(reason): give the reason"},
             {"too-many", "has made all 4 copies of the run (warmup 1 + repetitions 3)"},
             {"unverified-bytes",
              "the payload's own check (numpy.array_equal) says its bytes did not arrive"},
         }) {
        INFO(c.mode);
        const Outcome o = run_mode(c.mode);
        CHECK(o.cmd.exit_code == 1);
        CHECK(o.run.at("status") == "failed");
        CHECK(contains(errors_of(o.run), c.says));
        // A worker used from the other thread: both threads named, by Python name and tid.
        if (c.mode.rfind("other-thread", 0) == 0) {
            const std::string errors = errors_of(o.run);
            CHECK((contains(errors, "worker 0 belongs to thread 't0' (tid ") ||
                   contains(errors, "worker 1 belongs to thread 't1' (tid ")));
            CHECK((contains(errors,
                            "the thread that entered it, but this call came from thread "
                            "'t1' (tid ") ||
                   contains(errors,
                            "the thread that entered it, but this call came from thread "
                            "'t0' (tid ")));
        }
    }
}

TEST_CASE("ctx.skip ends the run as skipped with the payload's reason", "[integration][timed]") {
    const Outcome o = run_mode("skip");
    INFO(o.cmd.err);
    CHECK(o.cmd.exit_code == 0);
    CHECK(o.run.at("status") == "skipped");
    CHECK(o.run.at("errors").empty());
    CHECK(contains(o.run.at("notes").dump(),
                   "skipped: payload: the framework is not importable here"));
}

TEST_CASE("timed blocks, the payload's checks and its skip come back from worker processes",
          "[integration][timed]") {
    const Outcome o = run_mode("ok", "process");
    INFO(o.cmd.err);
    CHECK(o.cmd.exit_code == 0);
    CHECK(o.run.at("copy_sources") == json::array({"numpy copyto"}));
    CHECK(o.run.at("records").size() == 8);
    for (const auto& r : o.run.at("records")) CHECK(r.at("source") == 1);  // one label, renumbered
    CHECK(o.run.at("payload_verified").size() == 2);
    CHECK(contains(o.cmd.out, "timed blocks' bytes verified by the payload for 2 of 2 workers"));

    const Outcome skipped = run_mode("skip", "process");
    CHECK(skipped.cmd.exit_code == 0);
    CHECK(skipped.run.at("status") == "skipped");
    CHECK(contains(skipped.run.at("notes").dump(), "the framework is not importable here"));
}
