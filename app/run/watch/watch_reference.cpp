#include "run/watch/watch_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"

namespace xfer {
namespace fs = std::filesystem;

std::string reference_scenario_text(const std::vector<watch::DeviceUse>& uses, bool calibrate) {
    if (uses.empty()) return "";
    std::string out =
        "# Written by xferlab watch: what this machine's link gives the watched program's copies,\n"
        "# timed after the program ended (docs/watch.md). `xferlab run` runs it again.\n"
        "[scenario]\n"
        "name        = \"watch-reference\"\n"
        "description = \"page-locked reference copies on each device the program used\"\n"
        "backend     = \"cuda\"\n\n"
        "[transfer]\nrepetitions = 5\nwarmup      = 1\n";
    for (const watch::DeviceUse& u : uses) {
        const uint64_t bytes = std::clamp<uint64_t>(u.median_bytes, 1, kReferenceMaxBytes);
        out += fmt::format(
            "\n[[run]]\nlabel = \"{} {} device {}\"\nlauncher = \"host\"\n"
            "transfer.direction = \"{}\"\ntransfer.bytes = {}\ntransfer.devices = [{}]\n"
            "transfer.host_memory = \"pinned\"\nthreads.count = 1\n",
            kReferenceLabel, u.direction, u.device, u.direction, bytes, u.device);
        if (calibrate)
            out += fmt::format(
                "\n[[run]]\nlabel = \"{} {} device {}\"\nlauncher = \"host\"\n"
                "transfer.direction = \"{}\"\ntransfer.bytes = {}\ntransfer.devices = [{}]\n"
                "transfer.host_memory = \"pageable\"\ntransfer.path = \"staged\"\n"
                "threads.count = {}\n",
                kCalibrateLabel, u.direction, u.device, u.direction, bytes, u.device,
                std::max(1, u.workers));
    }
    return out;
}

ReferencePlan plan_references(const std::vector<watch::DeviceUse>& uses, bool calibrate,
                              const fs::path& dir, const Config& config, PlanRunner& runner,
                              int first_index) {
    ReferencePlan out;
    const std::string text = reference_scenario_text(uses, calibrate);
    if (text.empty()) return out;
    const fs::path file = dir / "reference.toml";
    {
        std::ofstream f(file);
        f << text;
        if (!f) {
            out.skipped = "its scenario could not be written to " + file.string();
            return out;
        }
    }
    LoadedPlan loaded;
    try {
        loaded = load_plan(file, {}, payload_search_path(config));
    } catch (const ScenarioError& e) {
        std::ostringstream why;
        print_diagnostics(e, why);
        out.skipped = "its scenario is not valid (a bug): " + why.str();
        return out;
    }
    if (const auto problems = runner.preflight(loaded.plan); !problems.empty()) {
        out.skipped = problems.front();
        return out;
    }
    for (Run& r : loaded.plan) {
        r.position.index += first_index;
        r.position.slot += first_index;
    }
    out.resolved = loaded.scenario.resolved;
    out.runs = std::move(loaded.plan);
    return out;
}

}  // namespace xfer
