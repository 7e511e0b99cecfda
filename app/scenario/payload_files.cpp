#include "scenario/payload_files.hpp"

#include <fstream>
#include <sstream>

#include "util/sha256.hpp"

namespace xfer {
namespace fs = std::filesystem;

namespace {

// Problems visible in the name itself, before any folder is looked at.
std::string name_problem(const std::string& name) {
    if (name.empty()) return "an empty name";
    if (name.find('\0') != std::string::npos)
        return "a name with a NUL byte (the file system would read only the part before it)";
    const fs::path p(name);
    if (p.is_absolute()) return "an absolute path";
    for (const auto& part : p)
        if (part == "..") return "a path with a '..' component";
    return {};
}

// Whether `path` (canonical) lies below `folder` (canonical).
bool inside(const fs::path& path, const fs::path& folder) {
    const fs::path rel = path.lexically_relative(folder);
    return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// The name as a message shows it: control characters (a NUL byte) spelled out.
std::string printable(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (static_cast<unsigned char>(c) < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[(c >> 4) & 0xf];
            out += hex[c & 0xf];
        } else {
            out += c;
        }
    }
    return out;
}

const char* const kHowToAdd =
    "a payload is a file name (or a relative path) below a payload folder; to run a file kept "
    "elsewhere, pass its folder with --payload-dir DIR or [run] payload_dir in the config";

}  // namespace

std::string folder_list(const std::vector<fs::path>& folders) {
    std::string out;
    for (const auto& f : folders) out += (out.empty() ? "" : ", ") + f.string();
    return out;
}

PayloadLookup find_payload(const std::string& name, const std::vector<fs::path>& folders) {
    const std::string searched = "payload folders searched: " + folder_list(folders);
    if (std::string why = name_problem(name); !why.empty())
        return {std::nullopt, "refused: " + why + "; " + kHowToAdd + " (" + searched + ")"};
    for (const auto& folder : folders) {
        std::error_code ec;
        const fs::path root = fs::canonical(folder, ec);
        if (ec) continue;  // a folder that does not exist holds nothing
        const fs::path candidate = root / name;
        if (!fs::exists(fs::symlink_status(candidate, ec))) continue;
        const fs::path real = fs::canonical(candidate, ec);
        if (ec) {
            return {std::nullopt, "'" + candidate.string() + "' cannot be resolved (" +
                                      ec.message() + "); " + searched};
        }
        if (!inside(real, root)) {
            return {std::nullopt, "refused: '" + candidate.string() +
                                      "' leads out of its payload "
                                      "folder " +
                                      root.string() + " (to " + real.string() + "); " + kHowToAdd};
        }
        if (!fs::is_regular_file(real, ec)) {
            return {std::nullopt, "'" + real.string() + "' is not a regular file; " + searched};
        }
        return {PayloadFile{real, root}, {}};
    }
    std::string tried;
    for (const auto& folder : folders)
        tried += (tried.empty() ? "" : ", ") + (folder / name).string();
    return {std::nullopt, "not found: looked for " + tried +
                              " (in this order; --payload-dir DIR or [run] payload_dir in the "
                              "config adds a folder)"};
}

std::optional<PayloadRecord> record_payload(const std::string& name,
                                            const std::vector<fs::path>& folders,
                                            std::string& error) {
    PayloadLookup found = find_payload(name, folders);
    if (!found.file) {
        error = "payload '" + printable(name) + "': " + found.error;
        return std::nullopt;
    }
    std::ifstream in(found.file->path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) {
        error = "payload '" + printable(name) + "': cannot read " + found.file->path.string();
        return std::nullopt;
    }
    return PayloadRecord{name, found.file->path.string(), found.file->folder.string(),
                         sha256_hex(bytes.str())};
}

std::vector<Diagnostic> payload_diagnostics(const Scenario& scenario,
                                            const std::vector<fs::path>& folders) {
    std::vector<Diagnostic> out;
    for (size_t i = 0; i < scenario.runs.size(); ++i) {
        const RunSpec& spec = scenario.runs[i];
        if (!spec.payload_set) continue;
        // Read as a run reads it, so that a file that cannot be read is bad input before
        // anything runs rather than a failed run.
        std::string error;
        if (record_payload(spec.payload, folders, error)) continue;
        out.push_back(Diagnostic{scenario.source.string(), spec.payload_line, spec.payload_column,
                                 "run[" + std::to_string(i + 1) + "].payload", error});
    }
    return out;
}

void check_payloads(const Scenario& scenario, const std::vector<fs::path>& folders) {
    auto diagnostics = payload_diagnostics(scenario, folders);
    if (!diagnostics.empty()) throw ScenarioError(std::move(diagnostics));
}

}  // namespace xfer
