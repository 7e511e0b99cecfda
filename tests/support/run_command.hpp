#pragma once
// Runs a shell command and captures its exit code, stdout and stderr (tests only).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace xfer::test {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::filesystem::path fresh_temp_dir(const std::string& tag) {
    std::string templ =
        (std::filesystem::temp_directory_path() / ("xferlab-" + tag + "-XXXXXX")).string();
    char* made = mkdtemp(templ.data());
    return made ? std::filesystem::path(made) : std::filesystem::path();
}

inline CommandResult run_command(const std::string& command) {
    auto dir = fresh_temp_dir("cmd");
    auto out = dir / "out", err = dir / "err";
    std::string full = command + " >" + out.string() + " 2>" + err.string() + " </dev/null";
    int status = std::system(full.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    std::filesystem::remove_all(dir);
    return r;
}

// The results.json `xferlab run` wrote into `dir`.
inline nlohmann::json results_of(const std::filesystem::path& dir) {
    return nlohmann::json::parse(slurp(dir / "results.json"));
}

// The built CLI, quoted for the shell.
inline std::string xferlab() { return std::string("'") + XFER_BINARY + "'"; }

// Whether `xferlab devices` finds the cuda backend available on this machine.
inline bool cuda_available() {
    const auto devices = nlohmann::json::parse(run_command(xferlab() + " devices --json").out,
                                               nullptr, /*allow_exceptions=*/false);
    if (!devices.is_object()) return false;
    for (const auto& b : devices.value("backends", nlohmann::json::array()))
        if (b.value("backend", "") == "cuda") return b.value("available", false);
    return false;
}

}  // namespace xfer::test
