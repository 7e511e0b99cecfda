#pragma once
// What a results file (results.json, results.sqlite, journal.jsonl) may hold, checked as it is
// read and before anything is computed from it. The analysis sizes its tables by the numbers a
// file holds (a row per worker up to the highest worker index): a crafted file whose records
// name worker 10^9 made `plot` grow to 24 GB, and a size of -1 read as 2^64-1 bytes. Every
// number a reader allocates by is bounded by what the plan can hold, and every impossible value
// is an error that names its run and record.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// The results schema this xferlab writes and reads (results.json's schema_version, each
// journal line's plan, results.sqlite's results_schema_version).
inline constexpr int kResultsSchema = 1;

// A plan larger than this is almost certainly a sweep typo: the loader refuses it before
// anything runs, and a results file of more runs than any plan has is refused as well.
inline constexpr size_t kMaxPlanRuns = 10000;

// Why `run` cannot be a run of a plan of `planned_runs` runs (0: unknown), naming the run and,
// where one is at fault, its record: "run 2 (host), record 7: worker 1000000000 is not one of
// the run's 4 workers (0 to 3)". "" when every value is possible.
std::string run_problem(const RunResult& run, int planned_runs);

// The same for the whole file: its schema version, its counts, then every run.
std::string results_problem(const Results& results);

// A number in `j` (a results.json, or one journal line) that no field it reaches can hold,
// named by its place and what is wrong: beyond +-2^63 anywhere ("/runs/0/records/3/worker is
// 1e+300: no value of a results file is that large"), or a float where xferlab writes an
// integer ("/runs/0/thread_infos/1/tid is 409000000000.0, where xferlab writes an integer").
// Converting such a float to an integer is undefined behaviour in the JSON library, so a
// reader looks for them before converting. "" when none.
std::string number_no_field_holds(const nlohmann::json& j);

// results.json's JSON as Results: numbers no field holds refused, converted, then checked
// (results_problem). Throws std::runtime_error saying what is wrong, and where.
Results results_from_json(const nlohmann::json& j);

}  // namespace xfer
