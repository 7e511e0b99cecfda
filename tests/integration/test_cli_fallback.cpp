// One host-fallback rule (issue #31): where backend "auto" falls back to host, runs whose
// settings need CUDA are skipped, one reason each, and the others run; backend = "host" refuses
// them; an unavailable backend is said once for the file, not once a run; `list` counts the
// runs that need CUDA by the same rule. What `run` does here depends on CUDA being unavailable:
// those tests skip themselves on a machine where it is available.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

const std::string kPinned =
    "transfer.host_memory = \"pinned\" needs the cuda backend (page-locked memory is allocated "
    "by CUDA)";
const std::string kPerWorker =
    "transfer.context = \"per-worker\" needs the cuda backend (a CUDA context per worker)";

// Three runs: pageable (the host backend runs it), pinned, per-worker.
const std::string kMixedRuns =
    "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
    "[[run]]\nlabel = \"pageable\"\nlauncher = \"host\"\n"
    "[[run]]\nlabel = \"pinned\"\nlauncher = \"host\"\ntransfer.host_memory = \"pinned\"\n"
    "[[run]]\nlabel = \"per-worker\"\nlauncher = \"host\"\ntransfer.context = \"per-worker\"\n";

fs::path write_scenario(const fs::path& dir, const std::string& name, const std::string& backend,
                        const std::string& body) {
    const fs::path file = dir / (name + ".toml");
    std::ofstream(file) << "[scenario]\nname = \"" << name << "\"\ndescription = \"" << name
                        << " runs\"\n"
                        << (backend.empty() ? "" : "backend = \"" + backend + "\"\n") << body;
    return file;
}

size_t occurrences(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// The run's notes that say why it was skipped.
std::vector<std::string> skip_notes(const nlohmann::json& run) {
    std::vector<std::string> out;
    for (const auto& note : run["notes"])
        if (note.get<std::string>().rfind("skipped: ", 0) == 0) out.push_back(note);
    return out;
}

}  // namespace

TEST_CASE("auto on the host fallback: runs needing CUDA skipped with one reason each",
          "[integration][fallback]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto dir = fresh_temp_dir("fallback-auto");
    const auto file = write_scenario(dir, "mixed", "auto", kMixedRuns);
    const auto r = run_command(xferlab() + " run '" + file.string() + "' --out '" +
                               (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // The fallback is said once for the file, with what it skips, before the runs' lines.
    CHECK(occurrences(r.err, "fell back to host") == 1);
    CHECK(contains(r.err, file.string() + ": note: backend auto fell back to host: cuda "
                                          "unavailable ("));
    CHECK(contains(r.err, "; 2 of 3 runs need CUDA and are skipped\n"));
    CHECK(r.err.find("fell back to host") < r.err.find("[1/3]"));
    // Each skipped run's progress line says why.
    CHECK(contains(r.err, ": skipped, " + kPinned + " ("));
    CHECK(contains(r.err, ": skipped, " + kPerWorker + " ("));
    const auto results = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
    REQUIRE(results["runs"].size() == 3);
    const auto& runs = results["runs"];
    CHECK(runs[0]["status"] == "ok");
    CHECK(runs[0]["backend"] == "host");
    CHECK(runs[0]["records"].size() == 3u);  // 1 thread x (2 repetitions + 1 warm-up)
    CHECK(skip_notes(runs[0]).empty());
    CHECK(runs[1]["status"] == "skipped");
    CHECK(runs[1]["records"].empty());
    CHECK(skip_notes(runs[1]) == std::vector<std::string>{"skipped: " + kPinned});
    CHECK(runs[2]["status"] == "skipped");
    CHECK(runs[2]["records"].empty());
    CHECK(skip_notes(runs[2]) == std::vector<std::string>{"skipped: " + kPerWorker});
    fs::remove_all(dir);
}

TEST_CASE("check names each run the host fallback skips once, and passes",
          "[integration][fallback]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto dir = fresh_temp_dir("fallback-check");
    const auto file = write_scenario(dir, "mixed", "", kMixedRuns);  // auto by default
    const auto r = run_command(xferlab() + " check '" + file.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(occurrences(r.err, "`run` skips it here") == 2);
    CHECK(occurrences(r.err, file.string() +
                                 ": warning: run 1 (pinned): not checked: `run` "
                                 "skips it here: " +
                                 kPinned + "\n") == 1);
    CHECK(occurrences(r.err, file.string() +
                                 ": warning: run 2 (per-worker): not checked: `run` "
                                 "skips it here: " +
                                 kPerWorker + "\n") == 1);
    // Skipped runs allocate nothing, and their copies are not in the totals: run 0's 1 thread x
    // (2 repetitions + 1 warm-up) of 64 KiB alone.
    CHECK(occurrences(r.out, "none (skipped here)") == 2);
    CHECK(contains(r.out, ", 3 copies, 192 KiB moved (2 runs skipped here not counted)\n"));
    fs::remove_all(dir);
}

TEST_CASE("backend = host refuses what needs CUDA, naming cuda and auto",
          "[integration][fallback]") {
    const auto dir = fresh_temp_dir("fallback-host");
    const auto file = write_scenario(dir, "mixed", "host", kMixedRuns);
    const std::string advice =
        "; this run's backend is host (use backend = \"cuda\", or \"auto\" to skip such runs "
        "where CUDA is unavailable)\n";
    const std::string run = "run --quiet --out '" + (dir / "out").string() + "'";
    for (const std::string& command : {std::string("check"), run}) {
        const auto r = run_command(xferlab() + " " + command + " '" + file.string() + "'");
        INFO(command << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(occurrences(r.err, file.string() + ": run 1 (pinned): " + kPinned + advice) == 1);
        CHECK(occurrences(r.err, file.string() + ": run 2 (per-worker): " + kPerWorker + advice) ==
              1);
        CHECK_FALSE(contains(r.err, "run 0 (pageable)"));
    }
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}

TEST_CASE("backend cuda unavailable: said once for the file, not once a run",
          "[integration][fallback]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto dir = fresh_temp_dir("fallback-cuda");
    const auto file =
        write_scenario(dir, "three", "cuda",
                       "[transfer]\nbytes = \"64KiB\"\n[[run]]\nlauncher = \"host\"\n[sweep]\n"
                       "\"threads.count\" = [1, 2, 4]\n");
    const std::string run = "run --quiet --out '" + (dir / "out").string() + "'";
    for (const std::string& command : {std::string("check"), run}) {
        const auto r = run_command(xferlab() + " " + command + " '" + file.string() + "'");
        INFO(command << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(occurrences(r.err, "unavailable") == 1);
        CHECK(occurrences(r.err, file.string() + ": backend cuda is unavailable here (") == 1);
        CHECK(contains(r.err, "): all 3 runs need it\n"));
        CHECK_FALSE(contains(r.err, ": run 0 ("));
    }
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}

TEST_CASE("list marks scenarios whose runs need CUDA, all or some, by the same rule",
          "[integration][fallback]") {
    const auto dir = fresh_temp_dir("fallback-list");
    const auto scenarios = dir / "scenarios";
    fs::create_directory(scenarios);
    write_scenario(scenarios, "a-cuda", "cuda", "[[run]]\nlauncher = \"host\"\n");
    write_scenario(scenarios, "b-all-pinned", "",
                   "[transfer]\nhost_memory = \"pinned\"\n[[run]]\nlauncher = \"host\"\n"
                   "[[run]]\nlauncher = \"process\"\n");
    write_scenario(scenarios, "c-some", "auto", kMixedRuns);
    // A [sweep] expands first: 2 of its 4 runs are pinned.
    write_scenario(scenarios, "d-sweep", "auto",
                   "[[run]]\nlauncher = \"host\"\n[[run]]\nlauncher = \"process\"\n[sweep]\n"
                   "\"transfer.host_memory\" = [\"pageable\", \"pinned\"]\n");
    write_scenario(scenarios, "e-none", "auto", "[[run]]\nlauncher = \"host\"\n");
    std::ofstream(dir / "config.toml")
        << "[run]\nscenario_dir = \"" << scenarios.string() << "\"\n";
    const auto r =
        run_command(xferlab() + " list --config '" + (dir / "config.toml").string() + "'");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto line = [&](const std::string& name) {
        for (const auto& l : lines_of(r.out))
            if (contains(l, name + ".toml")) return l;
        return std::string();
    };
    CHECK(contains(line("a-cuda"), "[needs CUDA] a-cuda runs"));
    CHECK(contains(line("b-all-pinned"), "[needs CUDA] b-all-pinned runs"));
    CHECK(contains(line("c-some"), "[2 of 3 runs need CUDA] c-some runs"));
    CHECK(contains(line("d-sweep"), "[2 of 4 runs need CUDA] d-sweep runs"));
    CHECK(contains(line("e-none"), "  e-none runs"));
    CHECK_FALSE(contains(line("e-none"), "CUDA"));
    fs::remove_all(dir);
}
