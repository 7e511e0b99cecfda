#include "remote/worker_protocol.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

#include "scenario/run_wire.hpp"
#include "util/frame.hpp"

namespace xfer {

nlohmann::json to_json(const WorkerJob& job) {
    return {{"run", run_to_wire(job.run)},
            {"workers", job.workers},
            {"record_size", job.record_size},
            {"backend", job.backend},
            {"payload_dir", job.payload_dir.string()},
            {"output_log", job.output_log.string()},
            {"python_executable", job.python_executable.string()},
            {"python_origin", job.python_origin}};
}

WorkerJob worker_job_from_json(const nlohmann::json& j) {
    WorkerJob job;
    job.run = run_from_wire(j.at("run"));
    job.workers = j.at("workers").get<std::vector<int>>();
    job.record_size = j.at("record_size").get<size_t>();
    if (job.record_size != sizeof(Record))
        throw std::runtime_error("the parent's records are " + std::to_string(job.record_size) +
                                 " bytes and this executable's " + std::to_string(sizeof(Record)) +
                                 ": parent and worker were built from different trees (rebuild "
                                 "both)");
    job.backend = j.at("backend").get<std::string>();
    job.payload_dir = j.at("payload_dir").get<std::string>();
    job.output_log = j.value("output_log", std::string());
    job.python_executable = j.value("python_executable", std::string());
    job.python_origin = j.value("python_origin", std::string());
    return job;
}

std::string worker_message(const std::string& type) {
    return nlohmann::json{{"type", type}}.dump();
}

void send_to_parent(std::string_view frame) {
    static std::mutex writing;
    std::lock_guard lock(writing);
    write_frame(kWorkerResultFd, frame);
}

}  // namespace xfer
