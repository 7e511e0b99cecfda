// [staging] stores resolved per direction, and the run's note that says so.
#include <string>

#include "backend/staging_stores.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

TEST_CASE("staging stores: auto is cached both ways, as measured, and says so", "[staging]") {
    const StagingStoresChoice c = resolve_staging_stores(StagingStores::auto_);
    CHECK(c.copy_in == HostStores::cached);
    CHECK(c.copy_out == HostStores::cached);
    CHECK(contains(c.note,
                   "helpers copy in (to the device) with cached stores, out (from the "
                   "device) with cached stores (auto: cached both ways, measured best on "
                   "H200)"));
}

TEST_CASE("staging stores: cached and streaming apply to both directions", "[staging]") {
    const StagingStoresChoice cached = resolve_staging_stores(StagingStores::cached);
    CHECK(cached.copy_in == HostStores::cached);
    CHECK(cached.copy_out == HostStores::cached);
    CHECK(contains(cached.note,
                   "in (to the device) with cached stores, out (from the device) "
                   "with cached stores"));
    CHECK(!contains(cached.note, "auto"));
    const StagingStoresChoice streaming = resolve_staging_stores(StagingStores::streaming);
    CHECK(streaming.copy_in == HostStores::streaming);
    CHECK(streaming.copy_out == HostStores::streaming);
    CHECK(contains(streaming.note,
                   "in (to the device) with streaming stores, out (from the "
                   "device) with streaming stores"));
}
