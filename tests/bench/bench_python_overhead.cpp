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
// first) / (copies - 1), i.e. one copy plus whatever the caller does until the next one. For
// 64 MiB copies the figure is the aggregate bandwidth over the run's measured copies. Runs go
// host, python, host, python, ..., host on the same buffers; each python run is compared with
// the mean of the host runs on either side (drifting load cancels), and each host run with the
// one before it, an A/A control that shows the measurement's own noise.
// Usage: bench_python_overhead [--blocks N] [--calls N] [--no-pin]   (exit 1: a target missed)
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
    h.run.settings.params["batch"] = batch;
    h.relaunch(launcher);
    const int copies = h.run.settings.transfer.repetitions + h.run.settings.transfer.warmup;
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

// Quartiles of `v`: {p25, p50, p75}.
std::vector<double> quartiles(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[size_t(q * double(v.size() - 1) + 0.5)]; };
    return {at(0.25), at(0.5), at(0.75)};
}

// The run sequence H0 P0 H1 P1 ... P(n-1) Hn: every python run P_k is bracketed by the host
// runs before and after it, which cancels load that drifts slowly; H(k+1) against H_k is the
// same comparison between two host runs (an A/A control: the measurement's own noise).
struct Bracketed {
    std::vector<double> host, python;
    std::vector<double> compared;  // f(P_k, mean(H_k, H_k+1))
    std::vector<double> control;   // f(H_k+1, H_k)
};

template <typename Measure, typename Compare>
Bracketed bracketed(int n, Measure host_run, Measure python_run, Compare f) {
    Bracketed b;
    b.host.push_back(host_run());
    for (int k = 0; k < n; ++k) {
        b.python.push_back(python_run());
        b.host.push_back(host_run());
        const double before = b.host[size_t(k)], after = b.host[size_t(k) + 1];
        b.compared.push_back(f(b.python.back(), (before + after) / 2));
        b.control.push_back(f(after, before));
    }
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    int blocks = 21;
    int calls = 50000;
    bool pin = true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--no-pin") == 0) pin = false;
        if (i + 1 == argc) break;
        if (std::strcmp(argv[i], "--blocks") == 0) blocks = std::max(2, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--calls") == 0) calls = std::max(100, std::atoi(argv[i + 1]));
    }
    // One CPU for everything (unless --no-pin): the threads every launcher creates inherit it,
    // and a migration would hit one side only.
    if (pin) apply_affinity({sched_getcpu()});
    std::printf("bench_python_overhead: w.copy() from a Python thread vs the host loop\n");
    std::printf("cpu: %s, %ld online; %s %d; load average before: %s\n", cpu_model().c_str(),
                sysconf(_SC_NPROCESSORS_ONLN), pin ? "pinned to cpu" : "not pinned, on cpu",
                sched_getcpu(), load_average().c_str());

    // 4 KiB: time per call.
    const int warm4 = 100;
    PyHarness small(repo_payloads(), "threads.py", 1, calls, warm4, 4096);
    small.launch("python");  // allocates; starts the interpreter; warms everything
    std::printf("python: %s\n", python_description()["version"].get<std::string>().c_str());
    auto call_ns = [&](const char* launcher, bool batch) {
        return [&small, launcher, batch, warm4] {
            return per_call_ns(one_run(small, launcher, batch), warm4);
        };
    };
    const auto minus = [](double a, double b) { return a - b; };
    const Bracketed per_call =
        bracketed(blocks, call_ns("host", false), call_ns("python", false), minus);
    std::vector<double> batch4, hgil4;
    for (int k = 0; k < blocks; ++k) {
        batch4.push_back(call_ns("python", true)());
        hgil4.push_back(call_ns("host+gil", false)());
    }

    // 64 MiB: aggregate bandwidth, on one pair of buffers for every run.
    const int copies64 = 12, warm64 = 1;
    PyHarness big(repo_payloads(), "threads.py", 1, copies64, warm64, 64ull << 20);
    big.launch("host");
    auto gbps = [&](const char* launcher) {
        return [&big, launcher, warm64] {
            return aggregate_gbps(one_run(big, launcher, false), warm64);
        };
    };
    const auto over = [](double a, double b) { return a / b; };
    const Bracketed bw = bracketed(blocks, gbps("host"), gbps("python"), over);

    const auto extra = quartiles(per_call.compared);
    const auto extra_aa = quartiles(per_call.control);
    const auto ratio = quartiles(bw.compared);
    const auto ratio_aa = quartiles(bw.control);
    std::printf("\n4 KiB copies, one worker, %d calls per run, %d python runs (median per call):\n",
                calls, blocks);
    std::printf("  host loop (run_worker_loop)      %8.1f ns\n", median(per_call.host));
    std::printf("  python w.copy() (gil=release)    %8.1f ns\n", median(per_call.python));
    std::printf("  python w.copy(count=n)           %8.1f ns\n", median(batch4));
    std::printf("  host+gil (GIL hand-off only)     %8.1f ns\n", median(hgil4));
    std::printf("  python - host: median %.1f ns (p25 %.1f, p75 %.1f)   target < 1500 ns\n",
                extra[1], extra[0], extra[2]);
    std::printf("  control, host - host: median %.1f ns (p25 %.1f, p75 %.1f)\n", extra_aa[1],
                extra_aa[0], extra_aa[2]);
    std::printf("\n64 MiB copies, one worker, %d measured copies per run, %d python runs:\n",
                copies64, blocks);
    std::printf("  host %.3f GB/s, python %.3f GB/s (medians)\n", median(bw.host),
                median(bw.python));
    std::printf("  python / host: median %.4f (p25 %.4f, p75 %.4f)   target 1.00 +- 0.02\n",
                ratio[1], ratio[0], ratio[2]);
    std::printf("  control, host / host: median %.4f (p25 %.4f, p75 %.4f)\n", ratio_aa[1],
                ratio_aa[0], ratio_aa[2]);
    std::printf("\nload average after: %s\n", load_average().c_str());

    const bool ok = extra[1] < 1500 && ratio[1] > 0.98 && ratio[1] < 1.02;
    std::printf("%s\n", ok ? "targets met" : "TARGET MISSED");
    return ok ? 0 : 1;
}
