// A worker process's job: the workers it runs (one for launcher "process", every one for
// python-ft and python-subinterp) arrive as sent, and a worker built from another tree, whose
// records would not read back, refuses the job saying so.
#include "remote/worker_protocol.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

WorkerJob job_of_four_workers() {
    Scenario s = parse_scenario(
        "[scenario]\nname = \"job\"\n[threads]\ncount = 4\n[[run]]\n"
        "launcher = \"python-ft\"\npayload = \"threads.py\"\n",
        "job.toml");
    WorkerJob job;
    job.run = expand_plan(s)[0];
    job.workers = {0, 1, 2, 3};
    job.backend = "host";
    job.payload_dir = "/payloads";
    return job;
}

}  // namespace

TEST_CASE("a worker job carries the workers its process runs", "[remote]") {
    const WorkerJob sent = job_of_four_workers();
    const WorkerJob got = worker_job_from_json(nlohmann::json::parse(to_json(sent).dump()));
    CHECK(got.workers == std::vector<int>{0, 1, 2, 3});
    CHECK(got.run.settings.launcher == "python-ft");
    CHECK(got.backend == "host");
    CHECK(got.python_executable.empty());  // a sibling starts its own interpreter
    CHECK(got.record_size == sizeof(Record));
}

TEST_CASE("a worker built from another tree refuses the job, saying why", "[remote]") {
    nlohmann::json j = to_json(job_of_four_workers());
    j["record_size"] = sizeof(Record) + 8;
    try {
        worker_job_from_json(j);
        FAIL("a job whose records differ in size was accepted");
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        CHECK(what.find("built from different trees") != std::string::npos);
        CHECK(what.find(std::to_string(sizeof(Record) + 8)) != std::string::npos);
    }
}
