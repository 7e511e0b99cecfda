// Messages between xferlab and its worker processes: length-prefixed frames over a pipe.
#include <unistd.h>

#include <string>

#include "support/catch.hpp"
#include "util/frame.hpp"

using namespace xfer;

TEST_CASE("frames cross a pipe whole, empty and large ones included", "[util]") {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const std::string big(40000, 'x');  // fits the pipe buffer: no reader thread needed
    write_frame(fds[1], "hello");
    write_frame(fds[1], "");
    write_frame(fds[1], big);
    close(fds[1]);
    CHECK(read_frame(fds[0]).value() == "hello");
    CHECK(read_frame(fds[0]).value().empty());
    CHECK(read_frame(fds[0]).value() == big);
    CHECK_FALSE(read_frame(fds[0]).has_value());  // clean end of stream
    close(fds[0]);
}

TEST_CASE("a stream cut inside a frame is an error, not a short message", "[util]") {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const unsigned char header[4] = {10, 0, 0, 0};  // promises 10 bytes
    REQUIRE(write(fds[1], header, 4) == 4);
    REQUIRE(write(fds[1], "abc", 3) == 3);
    close(fds[1]);
    std::string message;
    try {
        read_frame(fds[0]);
    } catch (const std::exception& e) {
        message = e.what();
    }
    CHECK(message.find("ended inside a message") != std::string::npos);
    close(fds[0]);
}

TEST_CASE("FrameBuffer yields frames split across reads and refuses impossible lengths", "[util]") {
    FrameBuffer buffer;
    const char part1[] = {5, 0, 0, 0, 'a', 'b'};
    const char part2[] = {'c', 'd', 'e', 1, 0, 0, 0, 'z'};
    buffer.append(part1, sizeof part1);
    CHECK_FALSE(buffer.next().has_value());
    buffer.append(part2, sizeof part2);
    CHECK(buffer.next().value() == "abcde");
    CHECK(buffer.next().value() == "z");
    CHECK(buffer.empty());

    FrameBuffer bad;
    const char huge[] = {char(0xff), char(0xff), char(0xff), char(0x7f)};
    bad.append(huge, sizeof huge);
    CHECK_THROWS(bad.next());
}
