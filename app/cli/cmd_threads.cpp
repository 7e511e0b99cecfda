#include "cli/cmd_threads.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <thread>

#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "embed/python.hpp"
#include "launch/openmp_team.hpp"
#include "run/plan/launchers.hpp"
#include "run/plan/plan_runner.hpp"
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
// are read where they run, inside the copy of a one-copy run on the host backend.
constexpr const char* kInterpreterLaunchers[] = {"python-ft", "python-subinterp"};

// Worker 0's ThreadInfo of a one-copy run of each interpreter launcher, appended to `infos`,
// one runner for both; a launcher that cannot run here adds its reason to `unavailable`.
void add_interpreter_threads(const Config& config, std::vector<ThreadInfo>& infos,
                             std::vector<std::string>& unavailable) {
    const auto cannot = [&](const std::string& launcher, const std::string& why) {
        unavailable.push_back(fmt::format("{}: not shown: {}", launcher, why));
    };
    try {
        std::string text =
            "[scenario]\nname = \"threads\"\nbackend = \"host\"\n"
            "[transfer]\nbytes = \"4KiB\"\nrepetitions = 1\nwarmup = 0\n[threads]\ncount = 1\n";
        for (const char* launcher : kInterpreterLaunchers)
            text += fmt::format("[[run]]\nlauncher = \"{}\"\npayload = \"threads.py\"\n", launcher);
        const Scenario scenario = parse_scenario(text, "xferlab threads");
        const PlanOptions options = plan_options(config);
        check_payloads(scenario, options.payload_dirs);
        const std::vector<Run> plan = expand_plan(scenario);
        const LauncherRegistry registry = make_launcher_registry();
        std::atomic<bool> never_stopped{false};
        PlanRunner runner(registry, options, never_stopped);
        if (auto problems = runner.preflight(plan); !problems.empty()) {
            for (const Run& run : plan) cannot(run.settings.launcher, problems.front());
            return;
        }
        for (const Run& run : plan) {
            const RunResult r = runner.run(run);
            const auto worker0 = std::find_if(r.threads_info.begin(), r.threads_info.end(),
                                              [](const ThreadInfo& t) { return t.worker == 0; });
            if (r.status == RunStatus::ok && worker0 != r.threads_info.end())
                infos.push_back(*worker0);
            else
                cannot(run.settings.launcher, !r.errors.empty() ? r.errors.front()
                                              : !r.notes.empty() ? r.notes.front()
                                                                 : "its run recorded no worker thread");
        }
    } catch (const std::exception& e) {
        for (const char* launcher : kInterpreterLaunchers) cannot(launcher, e.what());
    }
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
    // libgomp ends the process when it cannot create its thread: asked first.
    if (const std::string why = openmp_team_problem(2); !why.empty()) {
        std::cerr << "xferlab threads: an OpenMP thread could not start: " << why << "\n";
        return exit_run_failed;
    }
    ThreadInfo omp_info;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) omp_info = capture_thread_info("openmp", 1);
    }
    openmp_team_started(2);
    infos.push_back(omp_info);
    // The table is still printed without it, but the command did not do what it says.
    bool python_failed = false;
    try {
        infos.push_back(python_thread_info(config->default_payload_dir));
    } catch (const std::exception& e) {
        std::cerr << "xferlab threads: a Python thread could not start: " << e.what() << "\n";
        python_failed = true;
    }
    std::vector<std::string> unavailable;
    add_interpreter_threads(*config, infos, unavailable);

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
    std::cout << fmt::format("{}: worker 0 of a one-copy run on the host backend, read inside "
                             "its copy, where the GIL is released (in its worker process: the "
                             "name is that executable's)\n",
                             fmt::join(kInterpreterLaunchers, ", "));
    for (const std::string& line : unavailable) std::cout << line << "\n";
    return python_failed ? exit_run_failed : exit_ok;
}

}  // namespace xfer
