#pragma once
// xferlab's own settings: config/xferlab.toml, then a user config, then flags.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct Config {
    std::string output_dir = "results/{timestamp}-{scenario}";
    std::vector<std::string> reporters = {"json", "csv", "runs", "trace"};
    std::string format = "table";
    std::string backend = "auto";
    bool plots = false;  // output.plots: `run` draws the figures into the results folder
    // output.inline_records: a run with more copies than this keeps its records in
    // results.sqlite only; results.json and the journal say where they are.
    int64_t inline_records = 10000;
    // output.trace_copies: trace.json shows at most this many copies of a run (0: all).
    size_t trace_copies = 20000;
    // Payload folders searched before the default one: --payload-dir flags, then the config's
    // run.payload_dir (absolute after loading).
    std::vector<std::filesystem::path> payload_dirs;
    std::filesystem::path default_payload_dir;  // <source tree>/python_payloads, searched last
    std::filesystem::path scenario_dir;  // absolute after loading
    int64_t timeout_ns = 0;
    // python.executable: the interpreter the embedded Python is configured from (a venv's
    // bin/python3 brings its site-packages); empty: the one xferlab was built with. Its origin
    // is "FILE:LINE:COLUMN" of that key.
    std::filesystem::path python_executable;
    std::string python_executable_origin;
    std::vector<std::filesystem::path> sources;  // config files read, in order
};

// Every payload folder in search order: payload_dirs, then the default; each once.
std::vector<std::filesystem::path> payload_search_path(const Config& config);

// The built-in defaults file: $XFERLAB_CONFIG_DIR/xferlab.toml, else <source tree>/config.
std::filesystem::path default_config_path();
// The user's config: $XDG_CONFIG_HOME/xferlab/xferlab.toml (or ~/.config/...), when it exists.
std::optional<std::filesystem::path> user_config_path();

// Reads the defaults, then `user` (or the user's config when `user` is empty). Relative paths
// in a file are resolved against that file's folder. Throws ScenarioError on bad keys/values.
Config load_config(const std::optional<std::filesystem::path>& user);

}  // namespace xfer
