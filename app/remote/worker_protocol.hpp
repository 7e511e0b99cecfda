#pragma once
// How launchers "process", python-ft and python-subinterp talk to their worker processes:
// `xferlab worker` (or a sibling executable's, remote/sibling_executables.hpp) reads frames
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
#include <vector>

#include "results/record.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

constexpr int kWorkerJobFd = 3;
constexpr int kWorkerResultFd = 4;

struct WorkerJob {
    Run run;
    std::vector<int> workers;  // indices in the whole run: one (process), or all (python-ft)
    std::string backend;       // resolved backend name
    std::filesystem::path payload_dir;
    std::filesystem::path output_log;  // the parent's payload-output.log (empty: none)
    // The parent's embedded Python (chosen_python), for a worker of the same executable; empty
    // for a sibling built against another interpreter, which starts its own.
    std::filesystem::path python_executable;
    std::string python_origin;
    // The bytes of a Record: record batches are Records' bytes, so both ends must be built from
    // one tree (a sibling executable built from another is refused).
    size_t record_size = sizeof(Record);
};

nlohmann::json to_json(const WorkerJob& job);
// Throws std::runtime_error naming what is missing or differs.
WorkerJob worker_job_from_json(const nlohmann::json& j);

// {"type": type}
std::string worker_message(const std::string& type);

// One frame to the parent on kWorkerResultFd. Serialized: a worker process's start coordinator,
// its record streamer and its main thread all send, and frames must not interleave. Throws like
// write_frame.
void send_to_parent(std::string_view frame);

}  // namespace xfer
