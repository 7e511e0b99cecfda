// The python launcher with the repository's payloads: Python workers say so in their
// ThreadInfo, produce records through the same routine as host workers (same fields, same
// counts), and the interpreter is started the way the design says.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "support/catch.hpp"
#include "support/values.hpp"
#include "test_python_support.hpp"

using namespace xfer;
using xfer::test::has;
using xfer::test::PyHarness;
using xfer::test::repo_payloads;
using xfer::test::temp_payload_dir;
using xfer::test::write_file;

namespace {

int first_allowed_cpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) return c;
    return 0;
}

// What a worker's records must hold whoever launched it: one per copy, warm-up first and
// numbered from -warmup, sized, timed, stamped with the worker's own thread.
void check_records(const PyHarness& h, int worker) {
    const auto& recs = h.workers[size_t(worker)]->records();
    const int warmup = h.run.settings.transfer.warmup;
    REQUIRE(recs.size() == size_t(warmup + h.run.settings.transfer.repetitions));
    for (size_t k = 0; k < recs.size(); ++k) {
        const Record& r = recs[k];
        CHECK(r.run == h.run.position.index);
        CHECK(r.worker == worker);
        CHECK(r.repetition == int(k) - warmup);
        CHECK(r.warmup == (int(k) < warmup));
        CHECK(r.bytes == h.run.settings.transfer.bytes);
        CHECK(r.device == -1);
        CHECK(r.host_end_ns >= r.host_start_ns);
        CHECK(r.host_start_ns > 0);
        CHECK(r.tid == h.info(worker).tid);
        CHECK(r.pid == getpid());
        CHECK(r.cpu >= 0);
        if (k > 0) CHECK(r.host_start_ns >= recs[k - 1].host_end_ns);
    }
    CHECK(h.workers[size_t(worker)]->transfer().verify() == -1);
}

}  // namespace

TEST_CASE("threads.py: Python workers copy, and their ThreadInfo says python", "[python]") {
    PyHarness h(repo_payloads(), "threads.py", 3, 4, 2);
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    std::set<int> tids;
    for (int i = 0; i < 3; ++i) {
        check_records(h, i);
        const ThreadInfo& t = h.info(i);
        CHECK(t.launcher == "python");
        CHECK(t.python_thread);
        CHECK(t.worker == i);
        CHECK(t.tid != getpid());
        CHECK(t.stack_size > 0);
        REQUIRE(t.gil_held.has_value());
        CHECK_FALSE(*t.gil_held);  // gil = release (the default)
        tids.insert(t.tid);
    }
    CHECK(tids.size() == 3);  // one thread per worker
}

TEST_CASE("python and host launchers produce the same records", "[python]") {
    PyHarness py(repo_payloads(), "threads.py", 2, 5, 1);
    py.launch("python");
    PyHarness host(repo_payloads(), "", 2, 5, 1);
    host.launch("host");
    PyHarness batch(repo_payloads(), "threads.py", 2, 5, 1);
    batch.run.settings.params["batch"] = true;  // w.copy(count=n): one native call
    batch.launch("python");
    REQUIRE(py.errors.empty());
    REQUIRE(host.errors.empty());
    REQUIRE(batch.errors.empty());
    for (int i = 0; i < 2; ++i) {
        check_records(py, i);
        check_records(host, i);
        check_records(batch, i);
        CHECK(py.info(i).launcher == "python");
        CHECK(host.info(i).launcher == "host");
        CHECK_FALSE(host.info(i).python_thread);
    }
}

TEST_CASE("pool.py: ThreadPoolExecutor workers, one pool thread each", "[python]") {
    PyHarness h(repo_payloads(), "pool.py", 3, 2, 1);
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    std::set<int> tids;
    for (int i = 0; i < 3; ++i) {
        check_records(h, i);
        CHECK(h.info(i).python_thread);
        tids.insert(h.info(i).tid);
    }
    CHECK(tids.size() == 3);
}

TEST_CASE("thread_env.py: each worker changes its own environment", "[python]") {
    const ThreadInfo before = python_thread_info(repo_payloads());
    PyHarness h(repo_payloads(), "thread_env.py", 2, 2, 0);
    const int cpu = first_allowed_cpu();
    h.run.settings.params = nlohmann::json::object();
    h.run.settings.params["stack_size"] = 256 << 10;
    h.run.settings.params["block_signals"] = nlohmann::json::array({"SIGUSR1", "SIGTERM"});
    h.run.settings.params["cpus"] = nlohmann::json::array({cpu});
    h.run.settings.params["switch_interval"] = 0.002;
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    for (int i = 0; i < 2; ++i) {
        check_records(h, i);
        const ThreadInfo& t = h.info(i);
        CHECK(t.stack_size == 256u << 10);  // read back with pthread_getattr_np in the thread
        CHECK(has(t.blocked_signals, SIGUSR1));
        CHECK(has(t.blocked_signals, SIGTERM));
        CHECK(t.cpus == std::vector<int>{cpu});
    }
    // Process-wide settings are restored after the run: a new Python thread gets the default
    // stack again.
    const ThreadInfo after = python_thread_info(repo_payloads());
    CHECK(after.stack_size == before.stack_size);
    CHECK(after.stack_size != 256u << 10);
    CHECK(python_description()["switch_interval_s"].get<double>() == 0.005);
}

TEST_CASE("python_thread_info reads a real Python thread from inside it", "[python]") {
    const ThreadInfo t = python_thread_info(repo_payloads());
    CHECK(t.launcher == "python");
    CHECK(t.python_thread);
    CHECK(t.tid != getpid());
    CHECK(t.pid == getpid());
    CHECK(t.stack_size > 0);
    CHECK(!t.cpus.empty());
    REQUIRE(t.gil_held.has_value());
    CHECK(*t.gil_held);  // it ran Python code when it looked
}

TEST_CASE("the interpreter: payload dir and stdlib in sys.path, no cwd, no signal handlers",
          "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "helper_mod.py", "VALUE = 41\n");
    write_file(dir / "uses_helper.py",
               "import helper_mod, os, sys\n"
               "def main(ctx):\n"
               "    ctx.note('helper %d' % (helper_mod.VALUE + 1))\n"
               "    ctx.note('cwd in path: %s' % (os.getcwd() in sys.path or '' in sys.path))\n");
    PyHarness h(dir, "uses_helper.py", 1);
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    CHECK(h.all_notes().find("helper 42") != std::string::npos);
    CHECK(h.all_notes().find("cwd in path: False") != std::string::npos);

    const auto d = python_description();
    CHECK(d["started"].get<bool>());
    CHECK(d["isolated"].get<bool>());
    CHECK_FALSE(d["python_signal_handlers"].get<bool>());
    bool has_dir = false, has_stdlib = false;
    for (const auto& p : d["sys_path"]) {
        const auto s = p.get<std::string>();
        CHECK(!s.empty());
        CHECK(s.front() == '/');
        if (s == std::filesystem::weakly_canonical(dir).string()) has_dir = true;
        if (std::filesystem::exists(std::filesystem::path(s) / "threading.py")) has_stdlib = true;
    }
    CHECK(has_dir);
    CHECK(has_stdlib);
}

TEST_CASE("xferlab.thread_info, host_buffer and memcpy from a payload", "[python]") {
    auto dir = temp_payload_dir();
    write_file(dir / "freeform.py",
               "import threading, xferlab\n"
               "def main(ctx):\n"
               "    info = xferlab.thread_info()\n"
               "    ctx.note('launcher=%s python=%s gil=%s name=%s' % (info['launcher'],\n"
               "             info['python_thread'], info['gil_held'], info['thread_name']))\n"
               "    src = xferlab.host_buffer('64KiB')\n"
               "    dst = bytearray(len(src))\n"
               "    memoryview(src)[:5] = b'hello'\n"
               "    ns = xferlab.memcpy(dst, src)\n"
               "    ctx.note('copied=%s ns>=0:%s' % (bytes(dst[:5]), ns >= 0))\n"
               "    t0 = xferlab.now(); t1 = xferlab.now()\n"
               "    ctx.note('clock ok: %s' % (t1 >= t0 > 0))\n"
               "    ctx.note('stop=%s' % xferlab.stop_requested())\n"
               "    try:\n"
               "        xferlab.memcpy(dst, src, 1 << 20)\n"
               "    except ValueError as e:\n"
               "        ctx.note('too big: ' + str(e))\n"
               "    # The transfer API of the extension module, from the same bindings.\n"
               "    back = bytearray(len(src))\n"
               "    xferlab.copy(back, dst)\n"
               "    ctx.note('api: copy=%s Engine=%s Error<RuntimeError=%s' % (bytes(back[:5]),\n"
               "             hasattr(xferlab, 'Engine'), issubclass(xferlab.Error, RuntimeError)))\n"
               "    try:\n"
               "        from xferlab import cupy as xc\n"
               "        ctx.note('helpers: ' + xc.__name__)\n"
               "    except ImportError as e:\n"
               "        ctx.note('helpers missing: ' + str(e))\n");
    PyHarness h(dir, "freeform.py", 1);
    h.launch();
    INFO(h.all_errors() << h.all_notes());
    REQUIRE(h.errors.empty());
    const std::string n = h.all_notes();
    CHECK(n.find("launcher=python python=True gil=True name=xferlab-main") != std::string::npos);
    CHECK(n.find("copied=b'hello' ns>=0:True") != std::string::npos);
    CHECK(n.find("clock ok: True") != std::string::npos);
    CHECK(n.find("stop=False") != std::string::npos);
    CHECK(n.find("too big: copy: nbytes 1048576 exceeds") != std::string::npos);
    CHECK(n.find("api: copy=b'hello' Engine=True Error<RuntimeError=True") != std::string::npos);
    CHECK(n.find("helpers: xferlab.cupy") != std::string::npos);  // python/xferlab found
}

TEST_CASE("an interrupted run stops the payload's copies", "[python]") {
    PyHarness h(repo_payloads(), "threads.py", 2, 5, 0);
    h.stop = true;  // as SIGINT sets it
    h.launch();
    INFO(h.all_errors() << h.all_notes());
    CHECK(h.errors.empty());  // an interrupt is not a payload failure
    CHECK(h.copies(0) == 0);
    CHECK(h.copies(1) == 0);
}
