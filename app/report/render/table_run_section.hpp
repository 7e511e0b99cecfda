#pragma once
// One run's section of the full terminal table (report/render/table_reporter.cpp), and the words
// the table says about runs (report/render/shared_items.hpp), under a run or once for several.
#include <set>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/render/shared_items.hpp"
#include "results/run_result.hpp"

namespace xfer {

// The table's width: every line fits it.
constexpr size_t kTableWidth = 100;

// An error under its run, "  error: " first; a Python traceback keeps its indentation.
std::string error_lines(const std::string& e);

// "p50 (p10-p90)" of a bandwidth distribution in GB/s; "-" when it is empty.
std::string per_copy_cell(const Distribution& d);

// "Run 2: ..." and its figures, workers, devices and items, leaving out the items in `skip`
// (those printed once for several runs).
std::string run_section(const RunResult& r, const RunAnalysis& a, const std::set<RunItem>& skip);

// Items as the table prints them, each line starting with `indent`. Thread differences come
// under "thread attributes, run <their baseline run> vs <whose>:".
std::string items_text(const std::vector<RunItem>& items, const std::string& indent,
                       const std::string& whose);

}  // namespace xfer
