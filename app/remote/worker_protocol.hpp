#pragma once
// How launcher "process" talks to its worker processes: `xferlab worker` reads frames
// (util/frame.hpp) of JSON from fd 3 and writes frames to fd 4.
//   parent -> worker: job, then go | abort (only when the start needs a barrier)
//   worker -> parent: ready | aborted (its workers wait at the start / failed before it), then
//                     record batches (the records completed since the last batch, every
//                     ~50 ms while copying; binary: remote/record_stream.hpp), then
//                     result (every record again, thread info, errors, notes of its workers)
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "scenario/scenario.hpp"

namespace xfer {

constexpr int kWorkerJobFd = 3;
constexpr int kWorkerResultFd = 4;

struct WorkerJob {
    Run run;
    int worker = 0;       // index in the whole run
    std::string backend;  // resolved backend name
    std::filesystem::path payload_dir;
    std::filesystem::path output_log;  // the parent's payload-output.log (empty: none)
    // The parent's embedded Python (chosen_python): the worker's interpreter is the same one.
    std::filesystem::path python_executable;
    std::string python_origin;
};

nlohmann::json to_json(const WorkerJob& job);
WorkerJob worker_job_from_json(const nlohmann::json& j);

// {"type": type}
std::string worker_message(const std::string& type);

// One frame to the parent on kWorkerResultFd. Serialized: a worker process's start coordinator,
// its record streamer and its main thread all send, and frames must not interleave. Throws like
// write_frame.
void send_to_parent(std::string_view frame);

}  // namespace xfer
