#pragma once
// One source of names: every launcher and backend is described here once, with what it
// supports. Scenario validation and its messages, the config file, the command line's choices
// and help, the report, and the registries of implementations (the launcher registry,
// backend/registry.cpp) all read these tables; a test checks that every name here has an
// implementation and every implementation a name here. The report's formats are described
// beside their reporters (report/render/formats.hpp): nothing below the reporters names them.
#include <string>
#include <string_view>
#include <vector>

namespace xfer {

// What a launcher does with a run, each trait by name. A [[run]] key that a launcher would
// ignore is refused (scenario/file_reader.cpp), so that a run isolates what its file says.
struct LauncherTraits {
    bool takes_payload = false;  // runs a Python payload (payload = "x.py", params)
    bool needs_payload = false;  // ... and cannot run without one
    bool takes_gil = false;      // gil = release | hold means something
    bool takes_mimic = false;    // creates its threads itself: they can take a Python thread's
                                 // attributes (mimic)
    // Its workers run in other processes, which prepare their own buffers, device timestamps
    // and verification: the runner prepares no workers and starts no tracer.
    bool workers_elsewhere = false;
    // ... each in a process of its own (process, mpi). python-ft and python-subinterp run every
    // worker of a run in one process: its address space and its engine hold them all.
    bool process_per_worker = false;
    // Its workers are the ranks of an MPI job: every rank takes part in its runs (and only
    // in them), and the other ranks are processes xferlab did not start.
    bool spans_mpi_ranks = false;
    // Not a launcher a scenario can name: the run is a program xferlab watched (`xferlab
    // watch`), its copies recorded as the program made them, with no settings of its own.
    bool observes_program = false;
};

struct LauncherDescriptor {
    std::string name;
    std::string summary;  // one line: `xferlab help scenario-keys`
    LauncherTraits traits;
};

struct BackendDescriptor {
    std::string name;
    std::string summary;
    // Copies reach device memory; false for a backend whose "device" is host memory.
    bool has_devices = true;
};

const std::vector<LauncherDescriptor>& launcher_descriptors();
const std::vector<BackendDescriptor>& backend_descriptors();

// The launcher of a [[run]] that names none.
inline constexpr const char* kDefaultLauncher = "host";
// The backend choice that picks cuda when a device answers, else host.
inline constexpr const char* kAutoBackend = "auto";

// nullptr when unknown.
const LauncherDescriptor* find_launcher(std::string_view name);
const BackendDescriptor* find_backend(std::string_view name);
// The traits of a launcher of the vocabulary (std::logic_error for another name).
const LauncherTraits& launcher_traits(std::string_view name);

// The launchers a scenario can name (not those that observe a program).
std::vector<std::string> launcher_names();
// The launchers with a trait, in the vocabulary's order: launchers_with(&LauncherTraits::takes_gil).
std::vector<std::string> launchers_with(bool LauncherTraits::*trait);
// Whether a run's gil = release | hold changes what it does: its launcher takes `gil` and
// either always runs a payload (python) or runs none (host+gil), or the run has one.
bool gil_applies(const LauncherTraits& traits, bool has_payload);

// kAutoBackend first, then every backend.
std::vector<std::string> backend_choices();
std::vector<std::string> backend_names();

// "a, b, c" (or with another separator).
std::string join_names(const std::vector<std::string>& names, const std::string& separator = ", ");
// "\"a\", \"b\" and \"c\"": names in a sentence.
std::string quoted_names(const std::vector<std::string>& names, const std::string& last = " and ");

}  // namespace xfer
