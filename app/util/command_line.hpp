#pragma once
// The command line this process was started with, kept for the results: a report says what
// ran, and a run is reproduced from its command and the folder it was typed in.
#include <string>
#include <vector>

namespace xfer {

struct CommandLine {
    std::vector<std::string> argv;  // as the shell passed it; empty: not recorded
    std::string cwd;                // the working directory when it started
};

// Called once by the command-line entry point, before anything runs.
void record_command_line(int argc, const char* const* argv);
// What record_command_line kept (empty when it was not called: tests, embedders).
const CommandLine& command_line();

// The command as a shell would take it back: words with blanks or shell characters quoted.
std::string shell_text(const std::vector<std::string>& argv);

}  // namespace xfer
