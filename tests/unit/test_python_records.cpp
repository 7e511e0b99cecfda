// A payload's w.records(): each record as results.json writes it (the rows of
// results/record_fields.hpp), under each field's name in Record, the same keys present.
#include <fstream>
#include <string>

#include "results/record_fields.hpp"
#include "support/catch.hpp"
#include "test_python_support.hpp"

using namespace xfer;
using xfer::test::PyHarness;
using xfer::test::temp_payload_dir;
using xfer::test::write_file;

TEST_CASE("w.records() holds each field results.json writes, under its name in Record",
          "[python][record-fields]") {
    const auto dir = temp_payload_dir();
    write_file(dir / "dump_records.py",
               "import json\n"
               "def main(ctx):\n"
               "    w = ctx.worker(0)\n"
               "    for _ in range(ctx.copies):\n"
               "        w.copy()\n"
               "    with open(ctx.params['out'], 'w') as f:\n"
               "        json.dump(w.records(), f)\n");
    PyHarness h(dir, "dump_records.py", 1, 2, 1);
    h.run.settings.params = nlohmann::json::object();
    h.run.settings.params["out"] = (dir / "records.json").string();
    h.launch();
    INFO(h.all_errors());
    REQUIRE(h.errors.empty());
    std::ifstream in(dir / "records.json");
    const nlohmann::json got = nlohmann::json::parse(in);
    const auto& records = h.workers[0]->records();
    REQUIRE(got.size() == records.size());
    REQUIRE(records.size() == 3);
    for (size_t i = 0; i < records.size(); ++i) {
        nlohmann::json want = nlohmann::json::object();
        for_each_written_field(
            records[i], [&](const RecordField& f, const nlohmann::json& v) { want[f.name] = v; });
        INFO("record " << i);
        CHECK(got[i] == want);
        // The names a payload has always read (python_payloads/canary.py) and Record's own
        // name for the size (not results.json's size_bytes).
        CHECK(got[i].at("host_start_ns") == records[i].host_start_ns);
        CHECK(got[i].at("bytes") == records[i].bytes);
        CHECK(got[i].at("correlation") == records[i].correlation);
    }
}
