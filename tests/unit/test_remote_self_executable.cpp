// remote/sibling_executables' self_executable(): the file worker processes of this executable are
// started from. /proc/self/exe itself would name every such process "exe" (its comm, which
// `xferlab threads` shows for a python-subinterp worker on a host whose Python runs
// sub-interpreters: seen on the GPU host, issue 55's regression run).
#include <unistd.h>

#include <filesystem>

#include "remote/sibling_executables.hpp"
#include "support/catch.hpp"

namespace fs = std::filesystem;

TEST_CASE("self_executable: this process's own file, by its name, not /proc/self/exe", "[remote]") {
    const fs::path self = xfer::self_executable();
    CHECK(self != "/proc/self/exe");
    CHECK(self.is_absolute());
    CHECK(fs::equivalent(self, "/proc/self/exe"));  // the same file
    CHECK(self.filename() == "xfer_unit_tests");    // what a process started from it is called
}
