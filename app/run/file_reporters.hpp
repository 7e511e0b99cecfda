#pragma once
// Which report files a results folder gets. copies.csv is left out once a run keeps its records
// in results.sqlite only (more than output.inline_records copies): one text row per copy costs
// about 100 bytes and over a second per million records, more than every other output together
// (docs/performance.md "Records at scale"), and the store holds the same rows, which
// `xferlab report results.sqlite --format csv` turns into that file on demand.
#include <filesystem>
#include <string>
#include <vector>

#include "results/run_result.hpp"
#include "run/config.hpp"

namespace xfer {

// config.reporters, less "csv" when a run of `results` keeps its records in results.sqlite
// only. A copies.csv that an earlier rewrite of this plan left in `dir` (before that run
// ended) is then deleted: it would hold only the runs before.
std::vector<std::string> file_reporters(const Results& results, const Config& config,
                                        const std::filesystem::path& dir);

// Why copies.csv was not written and how to get it, for the run's closing lines; "" when it
// was written (or not asked for).
std::string copies_csv_note(const Results& results, const Config& config,
                            const std::filesystem::path& dir);

}  // namespace xfer
