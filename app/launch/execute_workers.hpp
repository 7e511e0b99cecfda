#pragma once
// The body of a run, wherever its workers run: prepare the buffers (never timed), start the
// backend's run, let the launcher drive the workers, collect records and ThreadInfo, end the
// backend's run (device timestamps), verify. The plan runner calls it for a whole run (with no
// workers of its own when the launcher's workers run in other processes); each worker process
// and MPI rank calls it for its share.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "launch/launcher.hpp"
#include "launch/start_gate.hpp"
#include "results/record.hpp"
#include "scenario/scenario.hpp"
#include "system/thread_info.hpp"

namespace xfer {

class Backend;

struct WorkersOutcome {
    bool started = false;  // false: preparing the buffers failed, nothing ran (errors say why)
    std::vector<Record> records;
    std::vector<ThreadInfo> threads;
    std::vector<HelperThread> helper_threads;  // the backend's own (staging engine helpers)
    // A payload's w.timed() blocks: labels, device copies joined to them, its own checks, and
    // why it skipped the run ("" when it did not). RunContext says more.
    std::vector<std::string> copy_sources;
    std::vector<DeviceCopy> device_copies;
    std::map<int, std::string> payload_verified;
    std::string skipped;
    std::vector<std::string> errors;
    std::vector<std::string> notes;
    int64_t collected_ns =
        0;  // host clock once records and device timestamps were in, before verifying
};

// Runs on its own thread when the start discipline needs a barrier across processes. It must end
// by calling gate.release() or gate.abort(); gate.wait_until_arrived() says when the local
// workers are all waiting (false: one failed before the start).
using GateCoordinator = std::function<void(StartGate& gate)>;

// Looks at this process's workers while they copy: a worker process streams their records to its
// parent as they complete (remote/record_stream.hpp), so that its death loses only the last ones.
// start() comes before the launch, stop() once the launcher returned, before the backend joins
// device timestamps into the records. It reads them with Worker::copy_published only.
class RecordWatcher {
  public:
    virtual ~RecordWatcher() = default;
    // "" once it watches; else why it cannot (its thread could not start), which the run notes:
    // the records still come with the result at the end.
    virtual std::string start(std::vector<const Worker*> workers) = 0;
    virtual void stop() = 0;
};

struct WorkersJob {
    const Run& run;
    Backend& backend;
    Launcher& launcher;
    std::vector<int> indices;  // the workers run here, as indices in the whole run
    std::filesystem::path payload_dir;
    std::atomic<bool>& stop;
    GateCoordinator coordinate;        // empty: the start gate is this process's alone
    RecordWatcher* watcher = nullptr;  // null: nobody looks at the records before the end
};

// Never throws: failures land in the outcome's errors.
WorkersOutcome execute_workers(const WorkersJob& job);

}  // namespace xfer
