// Issue 54, item 5: inputs are read from regular files only, and at most a bound. `check
// /dev/zero` grew to 22 GB in a minute, and a FIFO given as a file hung in open().
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"
#include "util/input_file.hpp"

namespace fs = std::filesystem;
using namespace xfer;
using xfer::test::contains;
using xfer::test::fresh_temp_dir;

TEST_CASE("read_input_file: a regular file's bytes, also through a link", "[util]") {
    const fs::path dir = fresh_temp_dir("input-file");
    const std::string bytes("a\0b\nc", 5);
    std::ofstream(dir / "f.toml", std::ios::binary) << bytes;
    fs::create_symlink(dir / "f.toml", dir / "link.toml");
    std::string why;
    CHECK(read_input_file(dir / "f.toml", 5, why) == bytes);
    CHECK(read_input_file(dir / "link.toml", 5, why) == bytes);
    CHECK(why.empty());
    fs::remove_all(dir);
}

TEST_CASE("read_input_file: a file above the bound is refused with both sizes", "[util]") {
    const fs::path dir = fresh_temp_dir("input-file-big");
    std::ofstream(dir / "big") << std::string(3 << 10, 'x');
    std::string why;
    CHECK_FALSE(read_input_file(dir / "big", 2 << 10, why));
    CHECK(why == "it is 3 KiB, more than the 2 KiB xferlab reads from such a file");
    fs::remove_all(dir);
}

TEST_CASE(
    "read_input_file: devices, FIFOs and folders are refused by what they are, without "
    "blocking",
    "[util]") {
    const fs::path dir = fresh_temp_dir("input-file-kinds");
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    fs::create_symlink("/dev/zero", dir / "zero");
    std::string why;
    // Before the fix the FIFO blocked in open() (a test that hangs, then times out) and
    // /dev/zero was read until memory ran out.
    CHECK_FALSE(read_input_file(dir / "fifo", 1 << 20, why));
    CHECK(contains(why, "it is a FIFO (named pipe), not a regular file"));
    CHECK_FALSE(read_input_file(dir / "zero", 1 << 20, why));
    CHECK(contains(why, "it is a character device, not a regular file"));
    CHECK_FALSE(read_input_file(dir, 1 << 20, why));
    CHECK(why == "it is a folder, not a file");
    CHECK_FALSE(read_input_file(dir / "absent", 1 << 20, why));
    CHECK(why == "No such file or directory");
    CHECK(open_regular_file(dir / "fifo", why) == -1);
    CHECK(contains(why, "it is a FIFO"));
    CHECK(contains(not_regular_file(dir / "zero"), "it is a character device"));
    CHECK(not_regular_file(dir / "fifo") == why);
    fs::remove_all(dir);
}
