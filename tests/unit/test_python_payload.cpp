// Payload failures: each fails its run with the Python traceback and the payload's file and
// line; copies completed before the failure are kept; a payload that hangs or leaves a thread
// running does not hang xferlab. And a payload is read from disk at every run.
#include <string>

#include "support/catch.hpp"
#include "support/text.hpp"
#include "test_python_support.hpp"
#include "util/clock.hpp"

using namespace xfer;
using xfer::test::contains;
using xfer::test::PyHarness;
using xfer::test::temp_payload_dir;
using xfer::test::write_file;

namespace {}  // namespace

TEST_CASE("a missing payload file fails the run and names the path", "[python]") {
    auto dir = temp_payload_dir();
    PyHarness h(dir, "nope.py", 1);
    h.launch();
    REQUIRE(h.errors.size() == 1);
    CHECK(contains(h.errors[0], "not found"));
    CHECK(contains(h.errors[0], (dir / "nope.py").string()));
    CHECK(h.copies(0) == 0);
}

TEST_CASE("a syntax error names the payload's file and line", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "bad_syntax.py", "import xferlab\n\ndef main(ctx)\n    pass\n");
    PyHarness h(dir, "bad_syntax.py", 1);
    h.launch();
    REQUIRE(h.errors.size() == 1);
    INFO(h.errors[0]);
    CHECK(contains(h.errors[0], "File \"" + (dir / "bad_syntax.py").string() + "\", line 3"));
    CHECK(contains(h.errors[0], "SyntaxError"));
}

TEST_CASE("a payload without main(ctx) fails the run", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "no_main.py", "def run(ctx):\n    pass\n");
    PyHarness h(dir, "no_main.py", 1);
    h.launch();
    REQUIRE(h.errors.size() == 1);
    CHECK(contains(h.errors[0], "defines no main(ctx)"));
    CHECK(contains(h.errors[0], "no_main.py"));
}

TEST_CASE("an exception in main(ctx) gives its traceback, earlier copies are kept", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "raises.py",
               "def helper():\n"
               "    raise ValueError('boom in helper')\n"
               "\n"
               "def main(ctx):\n"
               "    w = ctx.worker(0)\n"
               "    w.copy(count=2)\n"
               "    helper()\n");
    PyHarness h(dir, "raises.py", 1);
    h.launch();
    REQUIRE(h.errors.size() == 1);
    const std::string& e = h.errors[0];
    INFO(e);
    CHECK(contains(e, "main(ctx) raised"));
    CHECK(contains(e, "Traceback (most recent call last)"));
    CHECK(contains(e, "File \"" + (dir / "raises.py").string() + "\", line 7, in main"));
    CHECK(contains(e, "line 2, in helper"));
    CHECK(contains(e, "ValueError: boom in helper"));
    CHECK_FALSE(contains(e, "_runner"));  // xferlab's own frames are not part of it
    CHECK(h.copies(0) == 2);
    CHECK(h.workers[0]->transfer().verify() == -1);  // those two copies really happened
}

TEST_CASE("an exception in a worker thread names the thread, the others are stopped", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "thread_raises.py",
               "import threading\n"
               "\n"
               "def main(ctx):\n"
               "    copied = threading.Event()\n"
               "    def good():\n"
               "        w = ctx.worker(0)\n"
               "        w.copy(count=3)\n"
               "        copied.set()\n"
               "        w.barrier()  # waits for worker 1, which never arrives\n"
               "    def bad():\n"
               "        w = ctx.worker(1)\n"
               "        copied.wait()\n"
               "        w.copy()\n"
               "        raise RuntimeError('worker one gives up')\n"
               "    ts = [threading.Thread(target=good, name='xfer-good'),\n"
               "          threading.Thread(target=bad, name='xfer-bad')]\n"
               "    for t in ts: t.start()\n"
               "    for t in ts: t.join()\n");
    PyHarness h(dir, "thread_raises.py", 2);
    h.run.settings.timeout_ns = 60'000'000'000;  // a hang would show as a timeout error, not a hang
    h.launch();
    INFO(h.all_errors() << h.all_notes());
    REQUIRE(h.errors.size() == 1);
    CHECK(contains(h.errors[0], "exception in payload thread 'xfer-bad'"));
    CHECK(contains(h.errors[0], "line 14, in bad"));
    CHECK(contains(h.errors[0], "RuntimeError: worker one gives up"));
    // The good worker's copies are kept; it left the gate with xferlab.Stopped.
    CHECK(h.copies(0) == 3);
    CHECK(h.copies(1) == 1);
    CHECK(contains(h.all_notes(), "'xfer-good'"));
}

TEST_CASE("a payload that copies forever is stopped at the run timeout", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "forever.py",
               "import threading\n"
               "def main(ctx):\n"
               "    def work(i):\n"
               "        w = ctx.worker(i)\n"
               "        while True:\n"
               "            w.copy()\n"
               "    ts = [threading.Thread(target=work, args=(i,)) for i in range(ctx.threads)]\n"
               "    for t in ts: t.start()\n"
               "    for t in ts: t.join()\n");
    PyHarness h(dir, "forever.py", 2);
    h.run.settings.timeout_ns = 300'000'000;
    const int64_t t0 = now_ns();
    h.launch();
    const int64_t took = now_ns() - t0;
    INFO(h.all_errors());
    REQUIRE(h.errors.size() == 1);
    CHECK(contains(h.errors[0], "payload did not finish within 300.00 ms"));
    CHECK(contains(h.errors[0], "xferlab stopped it"));
    CHECK(h.copies(0) > 0);  // copies done before the timeout are kept
    CHECK(h.copies(1) > 0);
    CHECK(took < 60'000'000'000);  // a sanity bound (the test would hang otherwise)
    CHECK_FALSE(python_threads_leaked());
}

TEST_CASE("a thread that ignores the stop is reported and left behind", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "stuck.py",
               "import threading, time\n"
               "def main(ctx):\n"
               "    def sleeper():\n"
               "        while True:\n"
               "            time.sleep(0.01)\n"
               "    t = threading.Thread(target=sleeper, name='stuck-sleeper', daemon=True)\n"
               "    t.start()\n"
               "    t.join()\n");
    PyHarness h(dir, "stuck.py", 1);
    h.run.settings.timeout_ns = 200'000'000;
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.size() == 1);
    CHECK(contains(h.errors[0], "payload did not finish within 200.00 ms: threads still running"));
    CHECK(contains(h.errors[0], "'stuck-sleeper'"));
    CHECK(contains(h.errors[0], "'xferlab-main'"));
    CHECK(python_threads_leaked());
    // The interpreter still serves later runs.
    write_file(dir / "ok.py", "def main(ctx):\n    ctx.worker(0).copy()\n");
    PyHarness again(dir, "ok.py", 1);
    again.launch();
    CHECK(again.errors.empty());
    CHECK(again.copies(0) == 1);
}

TEST_CASE("threads main(ctx) leaves running are waited for, within the timeout", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "no_join.py",
               "import threading, time\n"
               "def main(ctx):\n"
               "    def work():\n"
               "        time.sleep(0.05)\n"
               "        ctx.worker(0).copy(count=2)\n"
               "    threading.Thread(target=work, name='late-worker').start()\n");
    PyHarness h(dir, "no_join.py", 1);
    h.run.settings.timeout_ns = 30'000'000'000;
    h.launch();
    INFO(h.all_errors());
    CHECK(h.errors.empty());
    CHECK(h.copies(0) == 2);
    CHECK(contains(h.all_notes(), "'late-worker'"));
}

TEST_CASE("a payload edited between two runs runs as edited", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "edit_me.py",
               "def main(ctx):\n"
               "    ctx.note('version one')\n"
               "    ctx.worker(0).copy()\n");
    PyHarness first(dir, "edit_me.py", 1);
    first.launch();
    REQUIRE(first.errors.empty());
    CHECK(first.copies(0) == 1);
    CHECK(first.all_notes().find("version one") != std::string::npos);

    write_file(dir / "edit_me.py",
               "def main(ctx):\n"
               "    ctx.note('version two')\n"
               "    ctx.worker(0).copy(count=3)\n");
    PyHarness second(dir, "edit_me.py", 1);
    second.launch();
    REQUIRE(second.errors.empty());
    CHECK(second.copies(0) == 3);
    CHECK(second.all_notes().find("version two") != std::string::npos);
    CHECK(second.all_notes().find("version one") == std::string::npos);

    // And a syntax error introduced by an edit is seen at once, with its new line.
    write_file(dir / "edit_me.py", "def main(ctx):\n    pass\n\nx = (\n");
    PyHarness third(dir, "edit_me.py", 1);
    third.launch();
    REQUIRE(third.errors.size() == 1);
    CHECK(third.errors[0].find("line 4") != std::string::npos);
}

TEST_CASE("ctx.barrier() without a worker on this thread says what to do", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "no_worker.py", "def main(ctx):\n    ctx.barrier()\n");
    PyHarness h(dir, "no_worker.py", 1);
    h.launch();
    REQUIRE(h.errors.size() == 1);
    CHECK(h.errors[0].find("this thread has no worker") != std::string::npos);
}

TEST_CASE("objects kept past their run raise xferlab.Stopped", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "keep.py",
               "import builtins\n"
               "def main(ctx):\n"
               "    w = ctx.worker(0)\n"
               "    if hasattr(builtins, 'kept_worker'):\n"
               "        try:\n"
               "            builtins.kept_worker.copy()\n"
               "        except __import__('xferlab').Stopped as e:\n"
               "            ctx.note('old worker: ' + str(e))\n"
               "    builtins.kept_worker = w\n"
               "    w.copy()\n");
    PyHarness first(dir, "keep.py", 1);
    first.launch();
    REQUIRE(first.errors.empty());
    PyHarness second(dir, "keep.py", 1);
    second.launch();
    INFO(second.all_errors());
    REQUIRE(second.errors.empty());
    CHECK(second.all_notes().find("old worker: run 'test' is over") != std::string::npos);
    CHECK(first.copies(0) == 1);
}
