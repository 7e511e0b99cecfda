#pragma once
// One source of names: every launcher, backend and reporter is described here once, with what
// it supports. Scenario validation, the config file, the command line's choices and help, and
// the registries of implementations (run/launchers.cpp, backend/registry.cpp,
// report/reporter.cpp) all read these tables; a test checks that every name here has an
// implementation and every implementation a name here.
#include <string>
#include <string_view>
#include <vector>

namespace xfer {

struct LauncherDescriptor {
    std::string name;
    std::string summary;            // one line for --help and `xferlab help scenario-keys`
    bool takes_payload = false;     // runs a Python payload (payload = "x.py")
    bool needs_payload = false;     // ... and cannot run without one
    bool takes_gil = false;         // gil = release | hold means something
    bool takes_mimic = false;       // threads xferlab creates can take a Python thread's attributes
    bool workers_elsewhere = false; // workers run in other processes (they prepare their own)
};

struct BackendDescriptor {
    std::string name;
    std::string summary;
};

struct ReporterDescriptor {
    std::string name;
    std::string summary;
    std::string file;      // what it writes into the results folder ("" for the terminal table)
    bool terminal = true;  // can be printed on the terminal (--format)
};

const std::vector<LauncherDescriptor>& launcher_descriptors();
const std::vector<BackendDescriptor>& backend_descriptors();
const std::vector<ReporterDescriptor>& reporter_descriptors();

// nullptr when unknown.
const LauncherDescriptor* find_launcher(std::string_view name);

std::vector<std::string> launcher_names();
// "auto" first (picks cuda when a device answers, else host), then every backend.
std::vector<std::string> backend_choices();
std::vector<std::string> reporter_names();
// Reporters that write a file into the results folder (config output.reporters).
std::vector<std::string> file_reporter_names();
// Reporters that can be printed on the terminal (--format, config output.format).
std::vector<std::string> terminal_format_names();

// "a, b, c" (or with another separator).
std::string join_names(const std::vector<std::string>& names, const std::string& separator = ", ");

}  // namespace xfer
