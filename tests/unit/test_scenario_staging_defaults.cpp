// [staging] chunk = "auto" by direction (the values measured on the H200 host, scenario.hpp).
#include "scenario/scenario.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("staging: auto chunk is 4 MiB to the device, 2 MiB from it, at most the copy",
          "[scenario][staging]") {
    constexpr uint64_t MiB = uint64_t(1) << 20;
    CHECK(default_staging_chunk(Direction::h2d, 1024 * MiB) == 4 * MiB);
    CHECK(default_staging_chunk(Direction::d2h, 1024 * MiB) == 2 * MiB);
    CHECK(default_staging_chunk(Direction::h2d, 100001) == 100001);
    CHECK(default_staging_chunk(Direction::d2h, 3 * MiB) == 2 * MiB);
    CHECK(default_staging_chunk(Direction::h2d, 0) == 1);
}
