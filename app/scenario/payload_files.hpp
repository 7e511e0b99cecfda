#pragma once
// Payload names resolved inside the payload folders only. A scenario file is shared between
// people; which folders may hold code to run is the user's choice (--payload-dir, config), so
// a name in the file can only pick a file below one of them (docs/payload-api.md, trust model).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

struct PayloadFile {
    std::filesystem::path path;    // canonical: symlinks inside the folder resolved
    std::filesystem::path folder;  // the payload folder it was found in (canonical)
};

struct PayloadLookup {
    std::optional<PayloadFile> file;
    std::string error;  // why not, naming the folders searched (when `file` is empty)
};

// Looks `name` up in `folders`, in order; the first folder that has it wins. Refused: an empty
// name, a NUL byte, an absolute path, a `..` component, a path that resolves (through symlinks)
// outside its folder, anything but a regular file.
PayloadLookup find_payload(const std::string& name,
                           const std::vector<std::filesystem::path>& folders);

// "A, B" as the messages list folders.
std::string folder_list(const std::vector<std::filesystem::path>& folders);

// find_payload, then the file's SHA-256: what results record for a run (and `check` prints).
// Empty with `error` set when the payload is refused or cannot be read.
std::optional<PayloadRecord> record_payload(const std::string& name,
                                            const std::vector<std::filesystem::path>& folders,
                                            std::string& error);

// One diagnostic per [[run]] whose payload record_payload refuses or cannot read, at its `payload`
// key.
std::vector<Diagnostic> payload_diagnostics(const Scenario& scenario,
                                            const std::vector<std::filesystem::path>& folders);

// Throws ScenarioError with payload_diagnostics when there are any: `check` and `run` refuse
// the scenario before anything runs.
void check_payloads(const Scenario& scenario, const std::vector<std::filesystem::path>& folders);

}  // namespace xfer
