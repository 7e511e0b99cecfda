// results.json: the whole Results (results/serialize.cpp) with each run's analysis added under
// "analysis" and the cross-run findings under "summary". Readers that load Results back
// (from_json) ignore the added keys.
#include <nlohmann/json.hpp>

#include "report/analysis/analysis_json.hpp"
#include "report/render/formats.hpp"
#include "results/serialize.hpp"

namespace xfer {

namespace {

class JsonReporter : public Reporter {
  public:
    std::string name() const override { return "json"; }

    void write(const Results& results, const Analysis& analysis, std::ostream& out) override {
        nlohmann::json j = results;
        auto& runs = j["runs"];
        for (size_t i = 0; i < runs.size() && i < analysis.runs.size(); ++i) {
            runs[i]["analysis"] = analysis.runs[i];
        }
        j["baseline_run"] =
            analysis.baseline_run ? nlohmann::json(*analysis.baseline_run) : nlohmann::json();
        j["trial_groups"] = analysis.groups;
        j["summary"] = texts(analysis.summary);
        // Invalid UTF-8 (e.g. in a payload's traceback) is replaced, never fatal.
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter() { return std::make_unique<JsonReporter>(); }

}  // namespace xfer
