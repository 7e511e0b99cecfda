#include "report/render/reporter.hpp"

#include "report/render/csv_reporter.hpp"
#include "report/render/json_reporter.hpp"
#include "report/render/runs_csv_reporter.hpp"
#include "report/render/table_reporter.hpp"
#include "report/render/trace_reporter.hpp"

namespace xfer {

std::unique_ptr<Reporter> make_reporter(const std::string& name, ReportDetail detail,
                                        const ReportLimits& limits) {
    if (name == "table") return make_table_reporter(detail);
    if (name == "json") return make_json_reporter();
    if (name == "csv") return make_csv_reporter();
    if (name == "runs") return make_runs_csv_reporter();
    if (name == "trace") return make_trace_reporter(limits.trace_copies_per_run);
    return nullptr;
}

}  // namespace xfer
