#include "cli/cmd_threads.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <functional>
#include <iostream>
#include <thread>

#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "embed/python.hpp"
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
         [](const ThreadInfo& t) { return t.gil_held ? (*t.gil_held ? "yes" : "no") : "-"; }},
    };
    return f;
}

}  // namespace

CLI::App* add_threads_command(CLI::App& app, CommonOptions& options) {
    auto* cmd = app.add_subcommand(
        "threads", "ThreadInfo of the main, a host, an OpenMP and a Python thread side by side");
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
    return exit_ok;
}

}  // namespace xfer
