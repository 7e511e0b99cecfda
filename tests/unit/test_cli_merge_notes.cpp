// Notes from several worker processes or ranks: one line per distinct note, saying where from.
#include "remote/local_workers.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("notes said by every process appear once, the others name their processes", "[cli]") {
    auto merged = merge_notes({{"CUPTI: 5 of 5 joined", "a"}, {"CUPTI: 5 of 5 joined"},
                               {"CUPTI: 5 of 5 joined", "a"}},
                              "worker processes");
    REQUIRE(merged.size() == 2);
    CHECK(merged[0] == "each of 3 worker processes: CUPTI: 5 of 5 joined");
    CHECK(merged[1] == "worker processes 0, 2: a");
    CHECK(merge_notes({{"only one"}}, "ranks") == std::vector<std::string>{"only one"});
    CHECK(merge_notes({{}, {}}, "ranks").empty());
}
