#pragma once
// The data handed from a run to the report. `report/` sees only these types: it never knows
// which launcher or backend produced them.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/device_copy.hpp"
#include "results/helper_thread.hpp"
#include "results/machine_facts.hpp"
#include "results/record.hpp"
#include "results/run_position.hpp"
#include "settings/run_settings.hpp"
#include "system/cpu_activity.hpp"
#include "system/stray_threads.hpp"
#include "system/thread_info.hpp"
#include "util/command_line.hpp"

namespace xfer {

enum class RunStatus { ok, failed, interrupted, skipped };
const char* to_string(RunStatus s);

// The payload file a run executed: where it was found and exactly which bytes.
struct PayloadRecord {
    std::string name;    // as the scenario names it
    std::string path;    // resolved (canonical)
    std::string folder;  // the payload folder it was found in
    std::string sha256;  // of the file's bytes when the run started
};

// A run as it ran: what it ran with and where it sits in the plan (both as the Run it came from
// had them: run/plan/run_header.cpp), then what came of it. Nothing here repeats a setting (the
// payload's record names the file as settings.payload does, beside where it was found).
struct RunResult {
    RunSettings settings;  // the fully resolved run (every default filled in), after mimic
    RunPosition position;
    // The backend that ran it ("host", "cuda"): settings.backend's choice where that says
    // "auto"; "" where the run ended before one was chosen.
    std::string backend_used;
    std::optional<PayloadRecord> payload;  // runs that executed a Python payload
    std::vector<Record> records;
    // Non-empty: results.json and the journal leave the records out (more than
    // output.inline_records of them) and this file of the results folder holds them
    // (results.sqlite); `report` loads them from there.
    std::string records_file;
    std::vector<ThreadInfo> threads_info;
    // Threads the backend ran besides the workers (transfer.path = "staged": the staging
    // engine's helpers), read inside each.
    std::vector<HelperThread> helper_threads;
    // Labels of the payload's `w.timed()` blocks (Record::source - 1 indexes it) and every
    // device copy the tracer joined to one of them.
    std::vector<std::string> copy_sources;
    std::vector<DeviceCopy> device_copies;
    // Workers whose payload checked the bytes itself (`w.verified`): worker -> how. xferlab
    // verifies its own routine's copies; a worker with only timed blocks is verified here or
    // not at all, and the report says which.
    std::map<int, std::string> payload_verified;
    RunStatus status = RunStatus::ok;
    std::vector<std::string> errors;  // why it failed, verification mismatches, payload tracebacks
    std::vector<std::string> notes;  // facts worth printing (e.g. "backend auto fell back to host")
    int64_t start_ns = 0;            // host clock, whole run including thread start
    int64_t end_ns = 0;
    // The machine's CPUs while the workers ran (absent where /proc/stat cannot be read, and in
    // results written before it was recorded).
    std::optional<HostActivity> host_activity;
    // Threads left running by earlier runs (a payload's thread past its timeout) that were
    // alive while this run measured: its figures may be skewed by them, its notes say so, and
    // trial verdicts count it as suspect. Empty for a run measured without any.
    std::vector<StrayThreadSeen> stray_threads;
};

struct Results {
    int schema_version = 1;
    std::string tool_version;
    std::string git_describe;
    // The machine and each backend's devices (results/machine_facts.hpp); nullopt where not
    // recorded: results read from a journal name no devices, nor a host without a plan line.
    std::optional<HostFacts> host;
    std::optional<std::vector<BackendDevices>> devices;
    nlohmann::json scenario;  // the resolved scenario
    // The `xferlab` command that ran the plan, and where (empty in results written before it
    // was recorded).
    CommandLine command;
    std::vector<RunResult> runs;
    bool interrupted = false;
    // False while the plan is still running: results.json is rewritten after every run, so a
    // file left by a crash or SIGKILL says it holds only the runs completed before that.
    bool complete = true;
    int planned_runs = 0;  // runs in the expanded plan (0: unknown, e.g. read from a journal)
    int64_t started_wall_ns = 0;
    // `run --fit`: the copy size chosen for this machine and why (null without --fit).
    nlohmann::json sizing;
    // What reading these results found that the reader must know, e.g. journal lines that
    // could not be read (a full disk, a killed process); the report's summary repeats them.
    // Empty for results as `run` wrote them.
    std::vector<std::string> notes;
};

}  // namespace xfer
