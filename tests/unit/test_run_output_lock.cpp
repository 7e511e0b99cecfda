// One results folder, one run: the lock on DIR/.xferlab.lock (run/output/output_lock.hpp).
#include <unistd.h>

#include <filesystem>
#include <string>

#include "run/output/output_lock.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using xfer::OutputLock;

TEST_CASE("an output folder's lock: one holder, the owner's pid for the others, gone at the end",
          "[run][output]") {
    const fs::path dir = xfer::test::fresh_temp_dir("lock");
    std::string owner;
    {
        auto first = OutputLock::try_take(dir, owner);
        REQUIRE(first.has_value());
        CHECK(fs::exists(dir / xfer::kOutputLockFile));
        // A second open file description conflicts even within this process, as another
        // xferlab's would.
        std::string second_owner;
        auto second = OutputLock::try_take(dir, second_owner);
        CHECK_FALSE(second.has_value());
        CHECK(second_owner == "pid " + std::to_string(::getpid()));
        OutputLock moved = std::move(*first);  // the lock moves with its owner
        CHECK_FALSE(OutputLock::try_take(dir, second_owner).has_value());
    }
    CHECK_FALSE(fs::exists(dir / xfer::kOutputLockFile));  // removed when released
    // A lock file left by a killed run (no flock held) is taken over.
    std::ofstream(dir / xfer::kOutputLockFile) << "999999\n";
    auto again = OutputLock::try_take(dir, owner);
    CHECK(again.has_value());
    again.reset();
    fs::remove_all(dir);
}
