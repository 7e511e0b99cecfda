// What calling the copy routine from a Python thread costs over the host loop
// (docs/performance.md, "Python call overhead"). Both sides are the real launchers on the host
// backend, one worker each:
//
//   host:   launcher "host": run_worker_loop calls Worker::copy_once in a C++ loop;
//   python: launcher "python" with python_payloads/threads.py: a threading.Thread calls
//           w.copy() once per copy (gil = release), returning to Python in between;
//   batch:  the same payload with params.batch = true: one w.copy(count=n) call;
//   host+gil: host threads that hand the GIL off around each copy, no Python code.
//
// Time per call is read from the records themselves: (start of the last copy - start of the
// first) / (copies - 1), i.e. one copy plus whatever the caller does until the next one. Runs
// alternate (host, python, python, host, ...) so that drifting machine load hits both alike;
// the extra cost is the median over run pairs of (python - host) per call. For 64 MiB copies
// the figure is the aggregate bandwidth over the run's measured copies, python / host.
// Usage: bench_python_overhead [--blocks N] [--calls N]   (exit 1 when a target is missed)
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "launch/thread_control.hpp"
#include "unit/test_python_support.hpp"

using namespace xfer;
using xfer::test::PyHarness;
using xfer::test::repo_payloads;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "?";
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// Runs `launcher` on `h`'s worker (python launchers run threads.py, batch per params) and
// returns its records. Every run reuses the same buffers.
std::vector<Record> one_run(PyHarness& h, const std::string& launcher, bool batch) {
    h.run.params["batch"] = batch;
    h.relaunch(launcher);
    const int copies = h.run.transfer.repetitions + h.run.transfer.warmup;
    if (!h.errors.empty() || h.copies(0) != size_t(copies)) {
        std::fprintf(stderr, "bench_python_overhead: %s run failed: %s\n", launcher.c_str(),
                     h.all_errors().c_str());
        std::exit(2);
    }
    if (h.workers[0]->transfer().verify() != -1) {
        std::fprintf(stderr, "bench_python_overhead: destination does not verify\n");
        std::exit(2);
    }
    return h.workers[0]->records();
}

// Mean start-to-start interval of the measured copies, in ns.
double per_call_ns(const std::vector<Record>& recs, int warmup) {
    const Record& first = recs[size_t(warmup)];
    const Record& last = recs.back();
    return double(last.host_start_ns - first.host_start_ns) /
           double(recs.size() - size_t(warmup) - 1);
}

// Bytes of the measured copies over the window from the first one's start to the last one's end.
double aggregate_gbps(const std::vector<Record>& recs, int warmup) {
    const Record& first = recs[size_t(warmup)];
    const Record& last = recs.back();
    double bytes = double(first.bytes) * double(recs.size() - size_t(warmup));
    return bytes / double(last.host_end_ns - first.host_start_ns);
}

}  // namespace

int main(int argc, char** argv) {
    int blocks = 11;
    int calls = 50000;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--blocks") == 0) blocks = std::max(2, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--calls") == 0) calls = std::max(100, std::atoi(argv[i + 1]));
    }
    // One CPU for everything: the threads every launcher creates inherit it, and a migration
    // would hit one side only.
    apply_affinity({sched_getcpu()});
    std::printf("bench_python_overhead: w.copy() from a Python thread vs the host loop\n");
    std::printf("cpu: %s, %ld online; pinned to cpu %d; load average before: %s\n",
                cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN), sched_getcpu(),
                load_average().c_str());
    // 4 KiB: per call.
    const int warm4 = 100;
    PyHarness small(repo_payloads(), "threads.py", 1, calls, warm4, 4096);
    small.launch("python");  // allocates; starts the interpreter; warms everything
    std::printf("python: %s\n", python_description()["version"].get<std::string>().c_str());
    std::vector<double> host4, py4, extra4, batch4, hgil4;
    for (int k = 0; k < blocks; ++k) {
        double h, p;
        if (k % 2 == 0) {
            h = per_call_ns(one_run(small, "host", false), warm4);
            p = per_call_ns(one_run(small, "python", false), warm4);
        } else {
            p = per_call_ns(one_run(small, "python", false), warm4);
            h = per_call_ns(one_run(small, "host", false), warm4);
        }
        host4.push_back(h);
        py4.push_back(p);
        extra4.push_back(p - h);
        batch4.push_back(per_call_ns(one_run(small, "python", true), warm4));
        hgil4.push_back(per_call_ns(one_run(small, "host+gil", false), warm4));
    }

    // 64 MiB: aggregate bandwidth, on one pair of buffers for every run.
    const int copies64 = 24, warm64 = 2;
    PyHarness big(repo_payloads(), "threads.py", 1, copies64, warm64, 64ull << 20);
    big.launch("host");
    std::vector<double> host64, py64, ratio64;
    for (int k = 0; k < blocks; ++k) {
        double h, p;
        if (k % 2 == 0) {
            h = aggregate_gbps(one_run(big, "host", false), warm64);
            p = aggregate_gbps(one_run(big, "python", false), warm64);
        } else {
            p = aggregate_gbps(one_run(big, "python", false), warm64);
            h = aggregate_gbps(one_run(big, "host", false), warm64);
        }
        host64.push_back(h);
        py64.push_back(p);
        ratio64.push_back(p / h);
    }

    const double extra = median(extra4);
    const double ratio = median(ratio64);
    std::printf("\n4 KiB copies, one worker, %d calls per run, %d runs each (median per call):\n",
                calls, blocks);
    std::printf("  host loop (run_worker_loop)      %8.1f ns\n", median(host4));
    std::printf("  python w.copy() (gil=release)    %8.1f ns\n", median(py4));
    std::printf("  python w.copy(count=n)           %8.1f ns\n", median(batch4));
    std::printf("  host+gil (GIL hand-off only)     %8.1f ns\n", median(hgil4));
    std::printf("  python - host, median of pairs   %8.1f ns   target < 1500 ns\n", extra);
    std::printf("\n64 MiB copies, one worker, %d measured copies per run, %d runs each:\n",
                copies64, blocks);
    std::printf("  host   %.3f GB/s   python %.3f GB/s\n", median(host64), median(py64));
    std::printf(
        "  python / host, median of pairs %.4f (min %.4f, max %.4f)   target 1.00 +- 0.02\n", ratio,
        *std::min_element(ratio64.begin(), ratio64.end()),
        *std::max_element(ratio64.begin(), ratio64.end()));
    std::printf("\nload average after: %s\n", load_average().c_str());

    const bool ok = extra < 1500 && ratio > 0.98 && ratio < 1.02;
    std::printf("%s\n", ok ? "targets met" : "TARGET MISSED");
    return ok ? 0 : 1;
}
