#pragma once
// JSON form of the results data model: results.json, the journal, and records streamed back
// from worker processes all use it. from_json(to_json(x)) == x.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "results/helper_thread.hpp"
#include "results/record.hpp"
#include "results/run_result.hpp"
#include "system/thread_info.hpp"

namespace xfer {

void to_json(nlohmann::json& j, const Record& r);
void from_json(const nlohmann::json& j, Record& r);
void to_json(nlohmann::json& j, const ThreadInfo& t);
void from_json(const nlohmann::json& j, ThreadInfo& t);
// worker -> text (RunResult::payload_verified) as {"<worker>": text}, and back.
nlohmann::json worker_texts_to_json(const std::map<int, std::string>& texts);
std::map<int, std::string> worker_texts_from_json(const nlohmann::json& j);
void to_json(nlohmann::json& j, const DeviceCopy& c);
void from_json(const nlohmann::json& j, DeviceCopy& c);
// Compact JSON text. Bytes that are not UTF-8 (a --set value, a payload's output) come out as
// U+FFFD instead of throwing: results and plans are written whatever strings they hold.
std::string compact_json(const nlohmann::json& j);
// {"chunks", "copied_bytes", "copy_ns", "start_ns", "wait_ns"}: the field names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HelperWork, chunks, copied_bytes, copy_ns, start_ns, wait_ns)
// A ThreadInfo's fields plus "busy" ([[start_ns, end_ns], ...]), "busy_dropped" and "work"
// (HelperWork); files from before the busy spans or the work read with none.
void to_json(nlohmann::json& j, const HelperThread& h);
void from_json(const nlohmann::json& j, HelperThread& h);
// A run's position as results.json writes it inside the run's "settings" (and the worker wire
// sends it): "index", "label", "sweep_point", "scaling_key", and unless !trials_recorded
// "trial", "position" (RunPosition::slot) and "base_label". from_json requires the first four.
void to_json(nlohmann::json& j, const RunPosition& p);
void from_json(const nlohmann::json& j, RunPosition& p);
// A run's "settings" as results.json and results.sqlite write it: the settings with the
// position's keys.
nlohmann::json settings_json(const RunSettings& settings, const RunPosition& position);
// The run keys results.json and results.sqlite's runs table write beside "settings": "index",
// "label", "launcher", "backend" (the one used), "threads", "bytes_per_copy", "direction",
// "host_memory", "sweep_point", "scaling_key", "trial", "base_label". They repeat the settings
// and the position for the tools that read them (python_lib/xferlab_plots, tests/python's
// audit, tools/interpreter-summary.py) and for older xferlab, which requires them; this one
// reads them only where an older file's "settings" lack a key (read_settings_and_position).
nlohmann::json run_keys_json(const RunResult& r);
// RunResult::settings and ::position from a run of results.json (or results.sqlite's runs row
// in that form): from "settings", the run keys standing in where an older file's settings lack
// one.
void read_settings_and_position(const nlohmann::json& run, RunResult& r);
void to_json(nlohmann::json& j, const RunResult& r);
void from_json(const nlohmann::json& j, RunResult& r);
// results.json's "command": {"argv": [...], "cwd": ...}; an absent one reads as not recorded.
nlohmann::json command_to_json(const CommandLine& c);
CommandLine command_from_json(const nlohmann::json& j);

void to_json(nlohmann::json& j, const Results& r);
void from_json(const nlohmann::json& j, Results& r);

// The enums' names as results.json writes them, back; std::invalid_argument for another name.
DeviceTiming device_timing_from(const std::string& s);
RunStatus run_status_from(const std::string& s);

// One line of journal.jsonl: the run, and under "plan" the tool version, host and resolved
// scenario it ran under, as results.json has them, so that a journal alone names what it
// holds. from_json(RunResult) reads the line as the run.
nlohmann::json journal_line(const Results& plan, const RunResult& run);

// Copies a journal line's "plan" into `r`. False for a line without one (an older journal).
bool read_journal_plan(const nlohmann::json& line, Results& r);

// An exception's message without nlohmann's "[json.exception.parse_error.101] " prefix: the
// rest is the news a user reads.
std::string json_error_text(const std::string& what);

}  // namespace xfer
