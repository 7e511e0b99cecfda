#pragma once
#include <string>

namespace CLI {
class App;
}

namespace xfer {

struct CompareOptions {
    std::string a, b;              // results.json or journal.jsonl
    std::string format = "table";  // table | json
    bool strict = false;           // --strict: refuse pairs whose runs differ in settings
};

// Registers `compare` with its options on `app` (kept here so that cli.cpp only dispatches).
CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);

// `xferlab compare A B`: B's runs against A's, paired by label (A and B: results files or the
// results folders that hold them). Every pair whose runs differ in a setting is warned about on
// stderr, one line per pair; with --strict such pairs are errors: nothing is compared, exit 2.
// Exit 2 when a file cannot be read as results.
int cmd_compare(const CompareOptions& options);

}  // namespace xfer
