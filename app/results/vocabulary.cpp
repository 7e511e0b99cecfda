#include "results/vocabulary.hpp"

namespace xfer {

const std::vector<LauncherDescriptor>& launcher_descriptors() {
    // Launchers that run a Python payload: python, and process and mpi workers in their own
    // interpreter; host, openmp and host+gil run the native loop only. mimic applies to threads
    // xferlab creates itself with pthreads.
    static const std::vector<LauncherDescriptor> all = {
        {"host", "pthreads created by xferlab, every thread attribute applied", false, false,
         false, true, false},
        {"openmp", "the threads of one OpenMP parallel region", false, false, false, false,
         false},
        {"python", "threading.Threads started by a Python payload", true, true, true, false,
         false},
        {"host+gil", "xferlab's pthreads that hold the GIL between copies", false, false, true,
         true, false},
        {"process", "one worker process per worker (posix_spawn)", true, false, true, false,
         true},
        {"mpi", "MPI ranks (mpirun -n N xferlab run ...)", true, false, true, false, true},
    };
    return all;
}

const std::vector<BackendDescriptor>& backend_descriptors() {
    static const std::vector<BackendDescriptor> all = {
        {"host", "memcpy between host buffers (stands in for a device)"},
        {"cuda", "CUDA runtime copies, device-side timestamps from CUPTI"},
    };
    return all;
}

const std::vector<ReporterDescriptor>& reporter_descriptors() {
    static const std::vector<ReporterDescriptor> all = {
        {"table", "the terminal report", "", true},
        {"json", "everything: settings, records, ThreadInfo, analysis", "results.json", true},
        {"csv", "one row per copy", "copies.csv", true},
        {"runs", "one row per run and per trial", "runs.csv", true},
        {"trace", "Chrome trace events for the Perfetto UI", "trace.json", false},
    };
    return all;
}

const LauncherDescriptor* find_launcher(std::string_view name) {
    for (const auto& d : launcher_descriptors())
        if (d.name == name) return &d;
    return nullptr;
}

std::vector<std::string> launcher_names() {
    std::vector<std::string> out;
    for (const auto& d : launcher_descriptors()) out.push_back(d.name);
    return out;
}

std::vector<std::string> backend_choices() {
    std::vector<std::string> out = {"auto"};
    for (const auto& d : backend_descriptors()) out.push_back(d.name);
    return out;
}

std::vector<std::string> reporter_names() {
    std::vector<std::string> out;
    for (const auto& d : reporter_descriptors()) out.push_back(d.name);
    return out;
}

std::vector<std::string> file_reporter_names() {
    std::vector<std::string> out;
    for (const auto& d : reporter_descriptors())
        if (!d.file.empty()) out.push_back(d.name);
    return out;
}

std::vector<std::string> terminal_format_names() {
    std::vector<std::string> out;
    for (const auto& d : reporter_descriptors())
        if (d.terminal) out.push_back(d.name);
    return out;
}

std::string join_names(const std::vector<std::string>& names, const std::string& separator) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : separator) + n;
    return out;
}

}  // namespace xfer
