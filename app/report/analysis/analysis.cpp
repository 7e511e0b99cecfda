// The distribution of a set of values (analysis.hpp); the whole analysis, figures and words, is
// analyze() (report/explain/analyze.hpp).
#include "report/analysis/analysis.hpp"

#include <algorithm>

#include "report/analysis/stats.hpp"

namespace xfer {

Distribution distribution(std::vector<double> values) {
    Distribution d;
    d.n = values.size();
    if (values.empty()) return d;
    std::sort(values.begin(), values.end());
    d.min = values.front();
    d.max = values.back();
    d.p10 = stats::percentile_sorted(values, 0.10);
    d.p50 = stats::percentile_sorted(values, 0.50);
    d.p90 = stats::percentile_sorted(values, 0.90);
    d.mean = stats::mean(values);
    d.stddev = stats::sample_stddev(values);
    d.cv = d.mean != 0 ? d.stddev / d.mean : 0;
    return d;
}

}  // namespace xfer
