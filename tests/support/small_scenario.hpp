#pragma once
// A scenario of one small host run, written where a test needs one (tests only).
#include <filesystem>
#include <fstream>
#include <string>

namespace xfer::test {

// `dir`/`name`.toml: scenario `name`, host backend, copies of 64 KiB, two repetitions, one
// [[run]] of launcher host; `run_extra` lines are added to that [[run]] (a label, a payload).
inline std::filesystem::path write_small_scenario(const std::filesystem::path& dir,
                                                  const std::string& name,
                                                  const std::string& run_extra = "") {
    const std::filesystem::path file = dir / (name + ".toml");
    std::ofstream(file) << "[scenario]\nname = \"" << name
                        << "\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n"
                           "[[run]]\nlauncher = \"host\"\n"
                        << run_extra;
    return file;
}

// `path` in single quotes for the shell.
inline std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

}  // namespace xfer::test
