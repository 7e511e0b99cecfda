#include "cli/cmd_threads.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <functional>
#include <iostream>
#include <thread>

#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "embed/python.hpp"
#include "run/launchers.hpp"
#include "run/plan_runner.hpp"
#include "scenario/loader.hpp"
#include "scenario/payload_files.hpp"
#include "system/signal_names.hpp"
#include "system/thread_info.hpp"
#include "system/thread_probe.hpp"
#include "util/thread_start.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

std::string join_ints(const std::vector<int>& v, size_t limit = 8) {
    if (v.empty()) return "-";
    // Contiguous ranges print as a-b: affinity sets are usually ranges.
    std::string out;
    for (size_t i = 0; i < v.size();) {
        size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        out += (out.empty() ? "" : ",") +
               (j > i ? fmt::format("{}-{}", v[i], v[j]) : std::to_string(v[i]));
        i = j + 1;
        if (out.size() > limit * 4) return out + ",...";
    }
    return out;
}

std::string signals(const std::vector<int>& v) {
    if (v.empty()) return "none";
    if (v.size() > 4) return fmt::format("{} signals", v.size());
    std::string out;
    for (int s : v) out += (out.empty() ? "" : ",") + signal_name(s);
    return out;
}

using Field = std::pair<std::string, std::function<std::string(const ThreadInfo&)>>;

const std::vector<Field>& fields() {
    static const std::vector<Field> f = {
        {"tid", [](const ThreadInfo& t) { return std::to_string(t.tid); }},
        {"name", [](const ThreadInfo& t) { return t.name; }},
        {"stack size", [](const ThreadInfo& t) { return format_size(t.stack_size); }},
        {"guard size", [](const ThreadInfo& t) { return format_size(t.guard_size); }},
        {"blocked signals", [](const ThreadInfo& t) { return signals(t.blocked_signals); }},
        {"affinity", [](const ThreadInfo& t) { return join_ints(t.cpus); }},
        {"policy", [](const ThreadInfo& t) { return t.policy; }},
        {"priority", [](const ThreadInfo& t) { return std::to_string(t.priority); }},
        {"nice", [](const ThreadInfo& t) { return std::to_string(t.nice); }},
        {"python thread", [](const ThreadInfo& t) { return t.python_thread ? "yes" : "no"; }},
        {"GIL held",
         [](const ThreadInfo& t) {
             if (t.gil_held) return *t.gil_held ? "yes" : "no";
             return t.python_thread ? "no GIL" : "-";
         }},
    };
    return f;
}

// The launchers whose workers run in a worker process of another executable: their threads
// are read where they run, inside a copy of a one-copy run on the host backend.
constexpr const char* kInterpreterLaunchers[] = {"python-ft", "python-subinterp"};

// Worker 0's ThreadInfo in a one-copy run of `launcher`, or nothing with the reason in `why`.
std::optional<ThreadInfo> interpreter_thread_info(const std::string& launcher, const Config& config,
                                                  std::string& why) {
    try {
        const std::string text = fmt::format(
            "[scenario]\nname = \"threads\"\nbackend = \"host\"\n"
            "[transfer]\nbytes = \"4KiB\"\nrepetitions = 1\nwarmup = 0\n"
            "[threads]\ncount = 1\n[[run]]\nlauncher = \"{}\"\npayload = \"threads.py\"\n",
            launcher);
        const Scenario scenario = parse_scenario(text, "xferlab threads");
        const PlanOptions options = plan_options(config);
        check_payloads(scenario, options.payload_dirs);
        const std::vector<Run> plan = expand_plan(scenario);
        const LauncherRegistry registry = make_launcher_registry();
        std::atomic<bool> never_stopped{false};
        PlanRunner runner(registry, options, never_stopped);
        if (auto problems = runner.preflight(plan); !problems.empty()) {
            why = problems.front();
            return std::nullopt;
        }
        const RunResult r = runner.run(plan.front());
        for (const ThreadInfo& t : r.threads_info)
            if (t.worker == 0 && r.status == RunStatus::ok) return t;
        why = !r.errors.empty()  ? r.errors.front()
              : !r.notes.empty() ? r.notes.front()
                                 : "its run recorded no worker thread";
    } catch (const std::exception& e) {
        why = e.what();
    }
    return std::nullopt;
}

}  // namespace

CLI::App* add_threads_command(CLI::App& app, CommonOptions& options) {
    auto* cmd = app.add_subcommand(
        "threads",
        "ThreadInfo of the main, a host, an OpenMP and a Python thread side by side, and of a "
        "worker thread of python-ft and python-subinterp");
    add_common_options(cmd, options);
    return cmd;
}

int cmd_threads(const CommonOptions& common) {
    auto config = load_config_or_report(common);
    if (!config) return exit_bad_input;
    std::vector<ThreadInfo> infos;
    infos.push_back(capture_thread_info("main", -1));
    std::string no_thread;
    std::thread host =
        start_thread([&] { infos.push_back(capture_thread_info("host", 0)); }, no_thread);
    if (!host.joinable()) {
        std::cerr << "xferlab threads: a host thread could not start: " << no_thread << "\n";
        return exit_run_failed;
    }
    host.join();
    ThreadInfo omp_info;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) omp_info = capture_thread_info("openmp", 1);
    }
    infos.push_back(omp_info);
    try {
        infos.push_back(python_thread_info(config->default_payload_dir));
    } catch (const std::exception& e) {
        std::cerr << "xferlab: python thread: " << e.what() << "\n";
    }
    std::vector<std::string> unavailable;
    for (const char* launcher : kInterpreterLaunchers) {
        std::string why;
        if (auto info = interpreter_thread_info(launcher, *config, why))
            infos.push_back(*info);
        else
            unavailable.push_back(fmt::format("{}: not shown: {}", launcher, why));
    }

    std::cout << fmt::format("{:<16}", "");
    for (const auto& t : infos) std::cout << fmt::format(" {:<20}", t.launcher);
    std::cout << "\n";
    for (const auto& [label, get] : fields()) {
        std::cout << fmt::format("{:<16}", label);
        const std::string host_value = get(infos[1]);
        for (const auto& t : infos) {
            std::string v = get(t);
            bool differs = label != "tid" && label != "name" && v != host_value;
            std::cout << fmt::format(" {:<20}", (differs ? "*" : " ") + v.substr(0, 19));
        }
        std::cout << "\n";
    }
    std::cout << "* differs from the host thread\n";
    std::cout << "python-ft, python-subinterp: worker 0 of a one-copy run on the host backend, "
                 "read inside its copy, where the GIL is released (in its worker process: the name "
                 "is that executable's)\n";
    for (const std::string& line : unavailable) std::cout << line << "\n";
    return exit_ok;
}

}  // namespace xfer
