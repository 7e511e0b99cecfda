#pragma once
// Reporters behind one interface, all fed by the same Results and Analysis.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

class Reporter {
  public:
    virtual ~Reporter() = default;
    virtual std::string name() const = 0;  // table | json | csv | trace
    // File reporters write into `dir` (atomically: temp file, then rename) and return the
    // path written; the table writes to `out` and returns "".
    virtual std::filesystem::path write(const Results& results, const Analysis& analysis,
                                        const std::filesystem::path& dir, std::ostream& out) = 0;
};

// The reporter of a name in results/vocabulary.hpp's reporter table; nullptr when unknown.
std::unique_ptr<Reporter> make_reporter(const std::string& name);

}  // namespace xfer
