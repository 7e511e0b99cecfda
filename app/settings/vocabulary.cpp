#include "settings/vocabulary.hpp"

#include <stdexcept>

namespace xfer {

const std::vector<LauncherDescriptor>& launcher_descriptors() {
    // Launchers that run a Python payload: python, python-ft and python-subinterp, and process
    // and mpi workers in their own interpreter; host, openmp and host+gil run the native loop
    // only. mimic applies to threads
    // xferlab creates itself with pthreads.
    static const std::vector<LauncherDescriptor> all = {
        {.name = "host",
         .summary = "pthreads created by xferlab, every thread attribute applied",
         .traits = {.takes_mimic = true}},
        {.name = "openmp", .summary = "the threads of one OpenMP parallel region", .traits = {}},
        {.name = "python",
         .summary = "threading.Threads started by a Python payload",
         .traits = {.takes_payload = true, .needs_payload = true, .takes_gil = true}},
        {.name = "host+gil",
         .summary = "xferlab's pthreads that hold the GIL between copies",
         .traits = {.takes_gil = true, .takes_mimic = true}},
        {.name = "process",
         .summary = "one worker process per worker (posix_spawn)",
         .traits = {.takes_payload = true,
                    .takes_gil = true,
                    .workers_elsewhere = true,
                    .process_per_worker = true}},
        {.name = "mpi",
         .summary = "MPI ranks (mpirun -n N xferlab run ...)",
         .traits = {.takes_payload = true,
                    .takes_gil = true,
                    .workers_elsewhere = true,
                    .process_per_worker = true,
                    .spans_mpi_ranks = true}},
        // Another interpreter needs another libpython: one worker process holds every worker.
        // No GIL, so `gil` means nothing to python-ft.
        {.name = "python-ft",
         .summary =
             "threading.Threads of a payload in free-threaded CPython (no GIL), in xferlab-ft",
         .traits = {.takes_payload = true, .needs_payload = true, .workers_elsewhere = true}},
        {.name = "python-subinterp",
         .summary =
             "one sub-interpreter with its own GIL per worker, a payload's main(ctx) in each",
         .traits = {.takes_payload = true,
                    .needs_payload = true,
                    .takes_gil = true,
                    .workers_elsewhere = true}},
        // Last: no scenario runs it (launcher_names leaves it out); results of `xferlab watch`
        // name it.
        {.name = "watched",
         .summary = "a program run by xferlab watch: every OS thread that copied is a worker",
         .traits = {.observes_program = true}},
    };
    return all;
}

const std::vector<BackendDescriptor>& backend_descriptors() {
    static const std::vector<BackendDescriptor> all = {
        {.name = "host",
         .summary = "memcpy between host buffers (stands in for a device)",
         .has_devices = false},
        {.name = "cuda", .summary = "CUDA runtime copies, device-side timestamps from CUPTI"},
    };
    return all;
}

const LauncherDescriptor* find_launcher(std::string_view name) {
    for (const auto& d : launcher_descriptors())
        if (d.name == name) return &d;
    return nullptr;
}

const BackendDescriptor* find_backend(std::string_view name) {
    for (const auto& d : backend_descriptors())
        if (d.name == name) return &d;
    return nullptr;
}

const LauncherTraits& launcher_traits(std::string_view name) {
    const LauncherDescriptor* d = find_launcher(name);
    if (!d) throw std::logic_error("launcher '" + std::string(name) + "' is not in the vocabulary");
    return d->traits;
}

std::vector<std::string> launcher_names() {
    std::vector<std::string> out;
    for (const auto& d : launcher_descriptors())
        if (!d.traits.observes_program) out.push_back(d.name);
    return out;
}

std::vector<std::string> launchers_with(bool LauncherTraits::*trait) {
    std::vector<std::string> out;
    for (const auto& d : launcher_descriptors())
        if (d.traits.*trait) out.push_back(d.name);
    return out;
}

bool gil_applies(const LauncherTraits& traits, bool has_payload) {
    return traits.takes_gil && (has_payload || traits.needs_payload || !traits.takes_payload);
}

std::vector<std::string> backend_choices() {
    std::vector<std::string> out = {kAutoBackend};
    for (const auto& name : backend_names()) out.push_back(name);
    return out;
}

std::vector<std::string> backend_names() {
    std::vector<std::string> out;
    for (const auto& d : backend_descriptors()) out.push_back(d.name);
    return out;
}

std::string join_names(const std::vector<std::string>& names, const std::string& separator) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : separator) + n;
    return out;
}

std::string quoted_names(const std::vector<std::string>& names, const std::string& last) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += i + 1 == names.size() ? last : ", ";
        out += "\"" + names[i] + "\"";
    }
    return out;
}

}  // namespace xfer
