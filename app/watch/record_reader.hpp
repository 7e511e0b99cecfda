#pragma once
// Reading the files the injected library wrote (watch/watch_records.h) back: one process's
// records, as they are, sorted by kind. Every committed record is read; a slot that was never
// committed (the process died while writing it) is counted, not read.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "watch/watch_records.h"

namespace xfer::watch {

struct TraceCall {
    int tid = 0;
    xw_api api{};
};

struct TraceThread {
    int tid = 0;
    xw_thread info{};
    std::vector<int> cpus;  // its affinity, from its XW_AFFINITY records
};

struct ProcessTrace {
    std::string file;
    int pid = 0;
    int ppid = 0;
    int64_t start_ns = 0;  // CLOCK_MONOTONIC when the file was made
    std::vector<TraceCall> calls;
    std::vector<xw_memcpy> copies;
    std::vector<xw_memset> memsets;
    std::map<int, TraceThread> threads;
    std::map<std::pair<int, uint32_t>, std::string> names;  // (domain, cbid) -> function
    std::map<uint32_t, xw_device> devices;
    std::unordered_map<uint32_t, xw_numa> samples;  // by the sampled call's correlation id
    std::vector<std::string> notes;
    std::optional<xw_clock> clock;
    std::optional<xw_end> end;  // absent: the library's exit handler never ran
    uint64_t records = 0;
    uint64_t torn = 0;           // slots with bytes but no commit word: a record cut short
    uint64_t unknown_types = 0;  // committed records of a type this xferlab does not know
};

// Reads `file`. Throws std::runtime_error naming the file and what is wrong with it (not a
// record file, another version, unreadable).
ProcessTrace read_process_trace(const std::filesystem::path& file);

// Every record file (*.xwatch) in `dir`, in the order the processes started. Throws as above;
// an empty list when there is none.
std::vector<ProcessTrace> read_watch_folder(const std::filesystem::path& dir);

// The function's name as its XW_NAME record gave it, else "runtime callback 31".
std::string function_name(const ProcessTrace& t, uint8_t domain, uint32_t cbid);

}  // namespace xfer::watch
