// The rows of record_fields.hpp: one per field of Record, in its order. Most fields are a
// number written as it is everywhere (integer<>); a row says what differs for its field.
#include "results/record_fields.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "results/checked_integer.hpp"
#include "results/copy_kinds.hpp"
#include "results/run_result.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"
#include "settings/value_checks.hpp"

namespace xfer {

using nlohmann::json;

namespace {

template <typename T>
constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, bool>) return "bool";
    if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
    if constexpr (std::is_same_v<T, int16_t>) return "int16";
    if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
    if constexpr (std::is_same_v<T, int32_t>) return "int32";
    if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
    if constexpr (std::is_same_v<T, int64_t>) return "int64";
    if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
}

template <auto Member>
using MemberType = std::remove_cvref_t<decltype(std::declval<Record>().*Member)>;

void append_number(std::string& out, int64_t v) { out += std::to_string(v); }

// A row being written: the field's defaults, then what its format does differently.
struct Row {
    RecordField f;

    Row&& key(const char* json_key) && {
        f.json_key = f.column = f.csv_column = json_key;
        return std::move(*this);
    }
    // Written to results.json where `when` holds; read where present (and its gate is).
    Row&& only(const char* present, bool (*when)(const Record&), const char* gate = nullptr) && {
        f.present = present;
        f.written = when;
        f.gate = gate;
        f.required = gate != nullptr;
        return std::move(*this);
    }
    Row&& form(const char* json_form) && {
        f.json_form = json_form;
        return std::move(*this);
    }
    Row&& optional() && {
        f.required = false;
        return std::move(*this);
    }
    Row&& sql(const char* type, const char* null_when, int since,
              SqlCell (*to)(const Record&, const RunResult&)) && {
        f.column_type = type;
        f.null_when = null_when;
        f.since = since;
        if (to) f.to_sql = to;
        return std::move(*this);
    }
    // Not a copies.csv column (the file keeps the columns it has had: a new field is left out
    // until the csv reporter writes it, and test_results_record_fields holds the two alike).
    Row&& not_in_csv() && { return std::move(*this).csv(""); }
    Row&& csv(const char* column, const char* form = "",
              void (*to)(const Record&, const CsvPlace&, std::string&) = nullptr) && {
        f.csv_column = column;
        f.csv_form = form;
        f.to_csv = to;
        return std::move(*this);
    }
};

// A field whose row says how each format writes and reads it.
Row custom(const char* name, const char* type, const char* meaning) {
    Row row;
    row.f.name = row.f.json_key = row.f.column = row.f.csv_column = name;
    row.f.type = type;
    row.f.meaning = meaning;
    return row;
}

// A number, the same in every format: results.json's integer (checked to fit the member),
// results.sqlite's INTEGER, the csv's decimal digits.
template <auto Member>
Row integer(const char* name, const char* meaning) {
    using T = MemberType<Member>;
    Row row = custom(name, type_name<T>(), meaning);
    RecordField& f = row.f;
    f.to_json = [](const Record& r) { return json(r.*Member); };
    f.from_json = [](const json& v, const char* key, Record& r) {
        r.*Member = checked_integer<T>(v, key);
    };
    f.to_sql = [](const Record& r, const RunResult&) -> SqlCell { return int64_t(r.*Member); };
    f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
        r.*Member = s.integer_as<T>(col);
    };
    return row;
}

// true or false: results.json's boolean, 0 or 1 in results.sqlite and the csv.
template <auto Member>
Row flag(const char* name, const char* meaning) {
    Row row = integer<Member>(name, meaning);
    RecordField& f = row.f;
    f.json_form = "true or false";
    f.from_json = [](const json& v, const char*, Record& r) { r.*Member = v.get<bool>(); };
    f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
        r.*Member = s.integer(col) != 0;
    };
    return row;
}

// -1 where unknown: written as -1 in results.json, NULL in results.sqlite.
template <auto Member>
SqlCell null_where_unknown(const Record& r, const RunResult&) {
    if (r.*Member == -1) return std::monostate{};
    return int64_t(r.*Member);
}

bool timed_block(const Record& r) { return r.foreign(); }
bool watched(const Record& r) { return r.watched(); }
constexpr const char* kTimedBlock = "only in a payload's `w.timed()` block";
constexpr const char* kWatched = "only in a watched program's copy (`xferlab watch`)";

constexpr char kCopyKindNames[] = "HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, DtoA, DtoD, HtoH, PtoP";
constexpr char kMemoryKindNames[] =
    "pageable, pinned, device, array, managed, device_static, managed_static, unknown";

// A watched copy's kind: CUPTI's code in the record, its name (copy_kinds.hpp) in the files,
// refused where CUPTI gives no such name.
template <auto Member, const char* (*Name)(uint8_t),
          std::optional<uint8_t> (*Code)(const std::string&), const char* Names>
Row cupti_kind(const char* name, const char* meaning) {
    Row row = custom(name, "uint8 (CUPTI's code)", meaning);
    RecordField& f = row.f;
    f.json_form = Names;
    f.to_json = [](const Record& r) { return json(Name(r.*Member)); };
    f.from_json = [](const json& v, const char* key, Record& r) {
        const std::string text = v.get<std::string>();
        const std::optional<uint8_t> c = Code(text);
        if (!c)
            throw std::invalid_argument(std::string(key) + " \"" + text + "\" is not one of " +
                                        Names);
        r.*Member = *c;
    };
    f.to_sql = [](const Record& r, const RunResult&) -> SqlCell {
        if (!r.watched()) return std::monostate{};
        return std::string(Name(r.*Member));
    };
    f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
        const std::string text = s.text(col);
        const std::optional<uint8_t> c = Code(text);
        if (!c)
            throw std::runtime_error(s.column_name(col) + " \"" + text +
                                     "\" is not a kind CUPTI names");
        r.*Member = *c;
    };
    return std::move(row).sql("TEXT", "", 6, nullptr).not_in_csv();
}

std::vector<RecordField> rows() {
    std::vector<Row> t;
    t.push_back(integer<&Record::run>("run", "the run's index in the plan")
                    .sql("INTEGER NOT NULL", "", 1, [](const Record&, const RunResult& run) {
                        return SqlCell(int64_t(run.position.index));
                    }));
    t.push_back(integer<&Record::worker>("worker", "the worker's index in its run"));
    t.push_back(integer<&Record::repetition>(
        "repetition", "0-based among the measured copies; warm-up copies count from -warmup"));
    t.push_back(flag<&Record::warmup>("warmup", "a warm-up copy: kept, left out of statistics"));
    t.push_back(integer<&Record::device>("device", "the device's index; -1 on the host backend"));
    {
        Row bytes = integer<&Record::bytes>("bytes", "bytes copied");
        // A negative size named as the settings name one; a size column read as unsigned.
        bytes.f.from_json = [](const json& v, const char* key, Record& r) {
            if (std::string why = settings_internal::negative_problem(v, key); !why.empty())
                throw std::invalid_argument(why);
            r.bytes = v.get<uint64_t>();
        };
        bytes.f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
            const int64_t v = s.integer(col);
            if (v < 0)
                throw std::runtime_error(s.column_name(col) + " " + std::to_string(v) +
                                         " is negative");
            r.bytes = uint64_t(v);
        };
        bytes.f.to_csv = [](const Record& r, const CsvPlace&, std::string& out) {
            out += std::to_string(r.bytes);
        };
        t.push_back(std::move(bytes).key("size_bytes"));
    }
    t.push_back(
        integer<&Record::host_start_ns>(
            "host_start_ns", "CLOCK_MONOTONIC ns when the call began, inside the copy routine")
            .csv("start_ns", "ns from the results' first record",
                 [](const Record& r, const CsvPlace& at, std::string& out) {
                     append_number(out, r.host_start_ns - at.origin);
                 }));
    t.push_back(
        integer<&Record::host_end_ns>("host_end_ns", "CLOCK_MONOTONIC ns when the call returned")
            .csv("duration_ns", "host_end_ns - host_start_ns",
                 [](const Record& r, const CsvPlace&, std::string& out) {
                     append_number(out, r.host_duration_ns());
                 }));
    t.push_back(
        integer<&Record::device_start_ns>("device_start_ns",
                                          "the transfer's start on the device, on the host clock")
            .form("-1 where unknown")
            .sql("INTEGER", "where unknown", 1, null_where_unknown<&Record::device_start_ns>)
            .csv("device_start_ns", "ns from the results' first record; empty where unknown",
                 [](const Record& r, const CsvPlace& at, std::string& out) {
                     if (r.has_device_time()) append_number(out, r.device_start_ns - at.origin);
                 }));
    t.push_back(integer<&Record::device_end_ns>("device_end_ns",
                                                "the transfer's end on the device, on the host "
                                                "clock")
                    .form("-1 where unknown")
                    .sql("INTEGER", "where unknown", 1, null_where_unknown<&Record::device_end_ns>)
                    .csv("device_duration_ns",
                         "device_end_ns - device_start_ns; empty where unknown",
                         [](const Record& r, const CsvPlace&, std::string& out) {
                             if (r.has_device_time()) append_number(out, r.device_duration_ns());
                         }));
    {
        Row timing = custom("device_timing", "enum",
                            "where the device times came from: CUDA events, CUPTI's records");
        RecordField& f = timing.f;
        f.json_form = "`none`, `events` or `cupti`";
        f.to_json = [](const Record& r) { return json(to_string(r.device_timing)); };
        f.from_json = [](const json& v, const char*, Record& r) {
            r.device_timing = device_timing_from(v.get<std::string>());
        };
        f.to_sql = [](const Record& r, const RunResult&) -> SqlCell {
            if (r.device_timing == DeviceTiming::none) return std::monostate{};
            return std::string(to_string(r.device_timing));
        };
        f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
            r.device_timing = device_timing_from(s.text(col));
        };
        t.push_back(std::move(timing)
                        .sql("TEXT", "for `none`", 1, nullptr)
                        .csv("device_timing", "`none`, `events` or `cupti`",
                             [](const Record& r, const CsvPlace&, std::string& out) {
                                 out += to_string(r.device_timing);
                             }));
    }
    t.push_back(integer<&Record::correlation>("correlation", "CUPTI's correlation id; 0: none")
                    .key("correlation_id"));
    t.push_back(integer<&Record::context>("context", "the CUDA context's id (CUPTI); 0: none"));
    t.push_back(integer<&Record::stream>("stream", "the CUDA stream's id (CUPTI); 0: none"));
    t.push_back(
        integer<&Record::tid>("tid", "the calling thread's kernel thread id").csv("thread"));
    t.push_back(integer<&Record::cpu>("cpu", "the CPU the call started on (sched_getcpu)"));
    t.push_back(integer<&Record::pid>("pid", "the calling thread's process"));
    t.push_back(integer<&Record::between_ns>("between_ns",
                                             "ns spent in threads.between after the worker's "
                                             "previous copy, before this call; 0: none applied")
                    .only("always (read as 0 where absent: files from before it)", nullptr));
    {
        Row source = integer<&Record::source>(
            "source", "its label's 1-based index in the run's copy_sources; 0: xferlab's routine");
        source.f.to_sql = [](const Record& r, const RunResult& run) -> SqlCell {
            if (!r.foreign() || r.source > run.copy_sources.size()) return std::monostate{};
            return run.copy_sources[r.source - 1];
        };
        // The label becomes its index in the run's copy_sources (results.json holds them in
        // that order), added there where a reader of the store alone has not seen it.
        source.f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult& run) {
            const std::string label = s.text(col);
            auto it = std::find(run.copy_sources.begin(), run.copy_sources.end(), label);
            if (it == run.copy_sources.end()) it = run.copy_sources.insert(it, label);
            r.source = uint16_t(it - run.copy_sources.begin() + 1);
        };
        t.push_back(std::move(source)
                        .only(kTimedBlock, timed_block)
                        .optional()
                        .sql("TEXT", "for xferlab's own copies; else the block's label", 2, nullptr)
                        .not_in_csv());
    }
    t.push_back(integer<&Record::device_calls>(
                    "device_calls", "the memcpy API calls CUPTI saw in the block; -1: not traced")
                    .only(kTimedBlock, timed_block, "source")
                    .optional()
                    .sql("INTEGER", "for xferlab's own copies and where not traced", 2,
                         [](const Record& r, const RunResult&) {
                             if (!r.foreign() || r.device_calls < 0) return SqlCell();
                             return SqlCell(int64_t(r.device_calls));
                         })
                    .not_in_csv());
    t.push_back(integer<&Record::gil_held_calls>("gil_held_calls",
                                                 "those of the calls made with the GIL held")
                    .only(kTimedBlock, timed_block, "source")
                    .optional()
                    .sql("INTEGER", "for xferlab's own copies and where not traced", 2,
                         [](const Record& r, const RunResult&) {
                             if (!r.foreign() || (r.device_calls < 0 && r.gil_held_calls == 0))
                                 return SqlCell();
                             return SqlCell(int64_t(r.gil_held_calls));
                         })
                    .not_in_csv());
    t.push_back(flag<&Record::failed>("failed", "the block raised: kept, marked, not measured")
                    .only(kTimedBlock, timed_block, "source")
                    .optional()
                    .sql("INTEGER", "for xferlab's own copies", 2,
                         [](const Record& r, const RunResult&) {
                             if (!r.foreign()) return SqlCell();
                             return SqlCell(int64_t(r.failed));
                         })
                    .not_in_csv());
    // copy_kind is the gate of the other two: a watched copy has all three.
    t.push_back(cupti_kind<&Record::copy_kind, copy_kind_name, copy_kind_code, kCopyKindNames>(
                    "copy_kind", "a watched copy's kind, as CUPTI names it")
                    .only(kWatched, watched)
                    .sql("TEXT", "for xferlab's own copies", 6, nullptr));
    t.push_back(cupti_kind<&Record::src_kind, memory_kind_name, memory_kind_code, kMemoryKindNames>(
                    "src_kind", "a watched copy's source memory, as CUPTI names it")
                    .only(kWatched, watched, "copy_kind"));
    t.push_back(cupti_kind<&Record::dst_kind, memory_kind_name, memory_kind_code, kMemoryKindNames>(
                    "dst_kind", "a watched copy's destination memory, as CUPTI names it")
                    .only(kWatched, watched, "copy_kind"));
    t.push_back(integer<&Record::host_node>(
                    "host_node", "the NUMA node most of the copy's sampled host pages were on")
                    .only("where its host pages were sampled (`move_pages`)",
                          [](const Record& r) { return r.host_node >= 0; })
                    .sql("INTEGER", "where none was sampled", 6,
                         [](const Record& r, const RunResult&) {
                             if (r.host_node < 0) return SqlCell();
                             return SqlCell(int64_t(r.host_node));
                         })
                    .not_in_csv());
    {
        Row gap = custom("gap", "object (GapProbe)",
                         "the gap before this call taken apart: stamps, the thread's counters");
        RecordField& f = gap.f;
        f.json_form = "an object (below)";
        f.to_json = [](const Record& r) { return gap_json(r.gap); };
        f.from_json = [](const json& v, const char*, Record& r) { r.gap = gap_from_json(v); };
        f.to_sql = [](const Record& r, const RunResult&) -> SqlCell {
            if (r.gap.empty()) return std::monostate{};
            return compact_json(gap_json(r.gap));
        };
        f.from_sql = [](const SqliteStatement& s, int col, Record& r, RunResult&) {
            r.gap = gap_from_json(json::parse(s.text(col)));
        };
        t.push_back(
            std::move(gap)
                .only("where the run took the gap apart (`[threads] gap_stages`, "
                      "`gap_counters`) and found something",
                      [](const Record& r) { return !r.gap.empty(); })
                .sql("TEXT", "where the record has none; else the object as JSON text", 7, nullptr)
                .not_in_csv());
    }
    std::vector<RecordField> fields;
    for (Row& r : t) fields.push_back(r.f);
    return fields;
}

const std::vector<RecordField>& table() {
    static const std::vector<RecordField> fields = rows();
    return fields;
}

}  // namespace

std::span<const RecordField> record_fields() { return table(); }

const RecordField* record_field(const std::string& name) {
    for (const RecordField& f : table())
        if (name == f.name) return &f;
    return nullptr;
}

const RecordField* record_field_by_key(const std::string& json_key) {
    for (const RecordField& f : table())
        if (json_key == f.json_key) return &f;
    return nullptr;
}

json record_json(const Record& r) {
    json j = json::object();
    for_each_written_field(r, [&](const RecordField& f, json v) { j[f.json_key] = std::move(v); });
    return j;
}

void record_from_json(const json& j, Record& r) {
    for (const RecordField& f : table()) {
        if (f.gate && !j.contains(f.gate)) continue;
        const auto it = j.is_object() ? j.find(f.json_key) : j.end();
        if (it == j.end()) {
            if (f.required) (void)j.at(f.json_key);  // the JSON library's "key '...' not found"
            continue;
        }
        f.from_json(*it, f.json_key, r);
    }
}

void csv_cell(const RecordField& f, const Record& r, const CsvPlace& at, std::string& out) {
    if (f.to_csv) return f.to_csv(r, at, out);
    const SqlCell cell = f.to_sql(r, at.run);
    if (const auto* n = std::get_if<int64_t>(&cell)) {
        append_number(out, *n);
    } else if (const auto* text = std::get_if<std::string>(&cell)) {
        out += *text;
    }
}

}  // namespace xfer
