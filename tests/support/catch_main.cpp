// The unit and integration executables' main: Catch's own, with -# (--filenames-as-tags) always
// on, so that every test case carries its file's tag, [#test_report_stats], and ctest's
// discovery lists one file's cases with a one-element TEST_SPEC (tests/CMakeLists.txt). A
// two-element spec ("-#" "[#file]") is not enough: Catch2 3.4's catch_discover_tests keeps only
// its first element, and every file then registered every case of its executable.
#ifndef XFER_CATCH3
#define CATCH_CONFIG_RUNNER
#endif
#include <vector>

#include "support/catch.hpp"

int main(int argc, char** argv) {
    static char filenames_as_tags[] = "-#";
    std::vector<char*> args(argv, argv + argc);
    args.insert(args.begin() + 1, filenames_as_tags);
    return Catch::Session().run(int(args.size()), args.data());
}
