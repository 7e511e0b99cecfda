// results/record_fields: one row per field of Record, and every format written and read
// through the rows: each field in results.json, results.sqlite (bound and selected by its
// column's name) and copies.csv, the table the docs hold.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "report/explain/analyze.hpp"
#include "report/render/origin.hpp"
#include "report/render/reporter.hpp"
#include "results/copies_table.hpp"
#include "results/record_fields.hpp"
#include "results/record_fields_doc.hpp"
#include "results/record_store.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "test_results_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
using xfer::testing::full_run;
namespace fs = std::filesystem;

namespace {

// How many members an aggregate has: the most values it can be brace-initialised from, each
// converting to whatever its member is.
struct AnyMember {
    template <typename T>
    operator T() const;
};

template <typename T, size_t... I>
constexpr bool initialised_from(std::index_sequence<I...>) {
    return requires { T{(void(I), AnyMember{})...}; };
}

template <typename T, size_t N = 0>
constexpr size_t member_count() {
    if constexpr (initialised_from<T>(std::make_index_sequence<N + 1>{}))
        return member_count<T, N + 1>();
    else
        return N;
}

fs::path fields_temp_file(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("xfer-record-fields-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::remove(dir / name);
    return dir / name;
}

// full_run() as run 0 of a plan of one, its records numbered so.
Results plan_of_full_run() {
    Results plan;
    plan.planned_runs = 1;
    RunResult run = full_run();
    run.position.index = 0;
    run.settings.threads.count = 8;  // full_record's worker 7
    for (Record& r : run.records) r.run = 0;
    plan.runs = {run};
    return plan;
}

Results store_then_read(const Results& plan, const fs::path& path) {
    {
        RecordStore store(path.string());
        store.write_plan(plan);
        for (const auto& run : plan.runs) store.add_run(run);
    }
    return read_record_store(path.string());
}

// Each field of each record the same in `back` as in `sent`, the field named where not.
void check_every_field(const std::vector<Record>& sent, const std::vector<Record>& back) {
    REQUIRE(back.size() == sent.size());
    for (size_t i = 0; i < sent.size(); ++i)
        for (const RecordField& f : record_fields()) {
            INFO("record " << i << ", field " << f.name);
            CHECK(f.to_json(back[i]) == f.to_json(sent[i]));
        }
}

std::string refusal_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(read without an error)";
}

// One line of copies.csv as its cells, RFC 4180 quoting undone.
std::vector<std::string> csv_cells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cells.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    return cells;
}

}  // namespace

TEST_CASE("every member of Record has one row, each name, key and column once",
          "[results][record-fields]") {
    CHECK(record_fields().size() == member_count<Record>());
    std::set<std::string> names, keys, columns, csv;
    for (const RecordField& f : record_fields()) {
        INFO(f.name);
        CHECK(names.insert(f.name).second);
        CHECK(keys.insert(f.json_key).second);
        CHECK(columns.insert(f.column).second);
        if (f.csv_column[0] != '\0') CHECK(csv.insert(f.csv_column).second);
        CHECK(std::string(f.meaning).size() > 0);
        CHECK((f.since >= 1 && f.since <= kRecordStoreSchema + 1));
        // A gate is another field's key, read before the fields it gates.
        if (f.gate) {
            const RecordField* gate = record_field_by_key(f.gate);
            REQUIRE(gate);
            CHECK(gate < &f);
        }
        CHECK(record_field(f.name) == &f);
        CHECK(record_field_by_key(f.json_key) == &f);
    }
}

TEST_CASE("the fixture's records give every field a value other than Record's default",
          "[results][record-fields]") {
    // So that the round trips below (and test_results_serialize, test_results_record_store)
    // carry each field: a new field needs a value in test_results_fixtures.hpp.
    const RunResult run = full_run();
    for (const RecordField& f : record_fields()) {
        INFO(f.name);
        bool set = false;
        for (const Record& r : run.records) set = set || f.to_json(r) != f.to_json(Record{});
        CHECK(set);
    }
}

TEST_CASE("each field comes back from results.json and results.sqlite as it was written",
          "[results][record-fields]") {
    const Results plan = plan_of_full_run();
    const std::vector<Record>& sent = plan.runs[0].records;
    std::vector<Record> from_json;
    for (const Record& r : sent) from_json.push_back(json::parse(json(r).dump()).get<Record>());
    check_every_field(sent, from_json);
    const Results back = store_then_read(plan, fields_temp_file("each.sqlite"));
    check_every_field(sent, back.runs.at(0).records);
}

TEST_CASE("results.json writes a field where its row says, and reads a gated one with its gate",
          "[results][record-fields]") {
    const RunResult run = full_run();
    const json plain = run.records[0];  // xferlab's own copy, nothing sampled
    for (const RecordField& f : record_fields()) {
        INFO(f.name);
        CHECK(plain.contains(f.json_key) == (f.written == nullptr));
    }
    const json timed = run.records[2];
    CHECK(timed.at("source") == 2);
    CHECK(timed.at("device_calls") == 3);
    CHECK(timed.contains("gap"));
    CHECK_FALSE(timed.contains("copy_kind"));
    const json watched = run.records[3];
    CHECK(watched.at("copy_kind") == "DtoH");
    CHECK(watched.at("host_node") == 1);
    // A timed block's fields without its "source" are not read: the record is xferlab's own.
    json stray = plain;
    stray["device_calls"] = 5;
    stray["failed"] = true;
    const Record r = stray.get<Record>();
    CHECK(r.device_calls == -1);
    CHECK_FALSE(r.failed);
    // A watched copy's kinds go together: copy_kind without src_kind is refused.
    json half = plain;
    half["copy_kind"] = "HtoD";
    CHECK(refusal_of([&] { (void)half.get<Record>(); }).find("key 'src_kind' not found") !=
          std::string::npos);
}

TEST_CASE("a host_node no int16 holds is refused in either file, naming the field",
          "[results][record-fields]") {
    // It was read with a plain conversion: 70000 came back as node 4464.
    json j = full_run().records[3];
    j["host_node"] = 70000;
    CHECK(refusal_of([&] { (void)j.get<Record>(); }) ==
          "host_node is 70000, more than that field holds (at most 32767)");
    const fs::path path = fields_temp_file("host-node.sqlite");
    store_then_read(plan_of_full_run(), path);
    SqliteDb(path.string(), false).exec("UPDATE copies SET host_node = 70000 WHERE rowid = 4");
    CHECK(refusal_of([&] { read_record_store(path.string()); }) ==
          path.string() +
              ": run 0, record 3: host_node is 70000, more than that field holds (at most 32767)");
}

TEST_CASE("results.sqlite's copies columns are the fields' own, in Record's order",
          "[results][record-fields]") {
    const fs::path path = fields_temp_file("columns.sqlite");
    store_then_read(plan_of_full_run(), path);
    SqliteDb db(path.string(), true);
    // The columns every store of schema 7 has had, in the order SELECT * gives them.
    const std::vector<std::string> schema7 = {"run",           "worker",        "repetition",
                                              "warmup",        "device",        "size_bytes",
                                              "host_start_ns", "host_end_ns",   "device_start_ns",
                                              "device_end_ns", "device_timing", "correlation_id",
                                              "context",       "stream",        "tid",
                                              "cpu",           "pid",           "between_ns",
                                              "source",        "device_calls",  "gil_held_calls",
                                              "failed",        "copy_kind",     "src_kind",
                                              "dst_kind",      "host_node",     "gap"};
    CHECK(copies_columns(db) == schema7);
}

TEST_CASE("each field is bound by its column's name: a table of another column order takes it",
          "[results][record-fields]") {
    // The copies table with its columns reversed: an INSERT by position would put the gap's
    // JSON into run and the run into gap.
    const fs::path path = fields_temp_file("reversed.sqlite");
    {
        SqliteDb db(path.string(), false);
        std::string columns;
        for (auto it = record_fields().rbegin(); it != record_fields().rend(); ++it)
            columns +=
                std::string(columns.empty() ? "" : ", ") + it->column + " " + it->column_type;
        db.exec("CREATE TABLE copies(" + columns + ")");
        const RunResult run = plan_of_full_run().runs[0];
        CopiesInsert insert(db);
        for (const Record& r : run.records) insert.add(r, run);
    }
    SqliteDb db(path.string(), true);
    RunResult back;
    back.copy_sources = {};
    CopiesSelect select(db, copies_fields_of(kRecordStoreSchema, copies_columns(db)), 0);
    std::vector<Record> records;
    while (select.step()) records.push_back(select.record(back));
    RunResult sent = plan_of_full_run().runs[0];
    // The timed block's label, read from the store alone, is the run's only one: index 1.
    CHECK(back.copy_sources == std::vector<std::string>{sent.copy_sources[1]});
    sent.records[2].source = 1;
    check_every_field(sent.records, records);
}

TEST_CASE("a column of a later field is read where a store of an earlier schema has it",
          "[results][record-fields]") {
    // What a field added after schema 7 relies on: the store keeps its schema number, and its
    // column is read wherever it is there. Here a schema 6 store that has the gap column.
    const fs::path path = fields_temp_file("later-column.sqlite");
    const Results plan = plan_of_full_run();
    REQUIRE_FALSE(plan.runs[0].records[2].gap.empty());
    store_then_read(plan, path);
    SqliteDb(path.string(), false).exec("UPDATE meta SET value='6' WHERE key='schema_version'");
    const Results back = read_record_store(path.string());
    CHECK(back.runs.at(0).records.at(2).gap == plan.runs[0].records[2].gap);
    // And a field of the store's own schema is required: a schema 7 store without gap is not
    // one xferlab wrote.
    SqliteDb(path.string(), false)
        .exec(
            "ALTER TABLE copies DROP COLUMN gap; UPDATE meta SET value='7' WHERE "
            "key='schema_version'");
    CHECK(refusal_of([&] { read_record_store(path.string()); }).find("no such column: gap") !=
          std::string::npos);
}

TEST_CASE("copies.csv holds each field's cell where its row names a column",
          "[results][record-fields][csv]") {
    // The csv reporter writes the file; the rows say what each field's cell is. A renamed
    // column, or a cell computed another way, shows here.
    const Results plan = plan_of_full_run();
    std::ostringstream out;
    make_reporter("csv")->write(plan, analyze(plan), out);
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = csv_cells(line);
    const RunResult& run = plan.runs[0];
    const CsvPlace at{run, first_record_ns(plan)};
    size_t in_file = 0;
    for (const Record& r : run.records) {
        REQUIRE(std::getline(in, line));
        const std::vector<std::string> cells = csv_cells(line);
        REQUIRE(cells.size() == header.size());
        for (const RecordField& f : record_fields()) {
            if (f.csv_column[0] == '\0') continue;
            INFO("field " << f.name << ", column " << f.csv_column << ", record " << r.repetition);
            REQUIRE(std::count(header.begin(), header.end(), f.csv_column) == 1);
            const size_t col =
                size_t(std::find(header.begin(), header.end(), f.csv_column) - header.begin());
            std::string want;
            csv_cell(f, r, at, want);
            CHECK(cells[col] == want);
            ++in_file;
        }
    }
    // The file's 18 record columns (its other 7 are the run's and figures computed from a
    // record), each checked on every record.
    CHECK(header.size() == 25);
    CHECK(in_file == 18 * run.records.size());
    CHECK_FALSE(std::getline(in, line));
}

TEST_CASE("docs/reading-reports.md holds the record fields' table as help prints it",
          "[results][record-fields]") {
    std::ifstream in(std::string(XFER_SOURCE_DIR) + "/docs/reading-reports.md");
    std::stringstream text;
    text << in.rdbuf();
    // Regenerate with `build/xferlab help record-fields --markdown` where this fails.
    CHECK(text.str().find(record_fields_markdown()) != std::string::npos);
    for (const RecordField& f : record_fields())
        CHECK(record_fields_markdown().find("| `" + std::string(f.name) + "` |") !=
              std::string::npos);
}
