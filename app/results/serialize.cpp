// JSON form of the results data model. Key names are documented in docs/reading-reports.md
// ("results.json"); record keys follow nvprof's vocabulary where it has one (size_bytes,
// correlation_id, context, stream). Enums are written as strings. Every field is written and
// every field is required when reading, so that a truncated or foreign file fails loudly
// instead of producing zeros; from_json(to_json(x)) reproduces x exactly (64-bit integers stay
// integers in nlohmann::json). The one exception: a run's keys that repeat its "settings"
// (run_keys_json) are written for other readers and read only where "settings" lack one.
#include "results/serialize.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "results/checked_integer.hpp"
#include "results/record_fields.hpp"
#include "settings/setting_keys.hpp"
#include "settings/value_checks.hpp"

namespace xfer {

using nlohmann::json;

DeviceTiming device_timing_from(const std::string& s) {
    for (auto t : {DeviceTiming::none, DeviceTiming::events, DeviceTiming::cupti}) {
        if (s == to_string(t)) return t;
    }
    throw std::invalid_argument("unknown device_timing \"" + s +
                                "\" (expected none | events | cupti)");
}

RunStatus run_status_from(const std::string& s) {
    for (auto t : {RunStatus::ok, RunStatus::failed, RunStatus::interrupted, RunStatus::skipped}) {
        if (s == to_string(t)) return t;
    }
    throw std::invalid_argument("unknown run status \"" + s +
                                "\" (expected ok | failed | interrupted | skipped)");
}

// A record's keys, when each is written and how it is read: record_fields.cpp.
void to_json(json& j, const Record& r) { j = record_json(r); }

void from_json(const json& j, Record& r) { record_from_json(j, r); }

namespace {

// A size or count, refused where negative (settings_internal::negative_problem).
uint64_t unsigned_at(const json& j, const char* key) {
    const json& v = j.at(key);
    if (std::string why = settings_internal::negative_problem(v, key); !why.empty())
        throw std::invalid_argument(why);
    return v.get<uint64_t>();
}

// Each element of the list `items` read in turn, so that a failure names it ("record 3: ...").
template <typename T>
std::vector<T> each_of(const json& items, const char* what) {
    if (!items.is_array()) throw std::invalid_argument(std::string(what) + "s is not a list");
    std::vector<T> out;
    out.reserve(items.size());  // what the file holds, not a number it says
    for (size_t i = 0; i < items.size(); ++i) {
        try {
            out.push_back(items[i].get<T>());
        } catch (const std::exception& e) {
            throw std::invalid_argument(std::string(what) + " " + std::to_string(i) + ": " +
                                        json_error_text(e.what()));
        }
    }
    return out;
}

}  // namespace

json worker_texts_to_json(const std::map<int, std::string>& texts) {
    json j = json::object();
    for (const auto& [worker, text] : texts) j[std::to_string(worker)] = text;
    return j;
}

std::map<int, std::string> worker_texts_from_json(const json& j) {
    std::map<int, std::string> texts;
    for (const auto& [worker, text] : j.items()) texts[std::stoi(worker)] = text.get<std::string>();
    return texts;
}

void to_json(json& j, const DeviceCopy& c) {
    j = json{{"correlation_id", c.correlation},
             {"worker", c.worker},
             {"repetition", c.repetition},
             {"start_ns", c.start_ns},
             {"end_ns", c.end_ns},
             {"size_bytes", c.bytes},
             {"device", c.device},
             {"stream", c.stream},
             {"kind", c.kind},
             {"src", c.src},
             {"dst", c.dst}};
}

void from_json(const json& j, DeviceCopy& c) {
    integer_at(j, "correlation_id", c.correlation);
    integer_at(j, "worker", c.worker);
    integer_at(j, "repetition", c.repetition);
    integer_at(j, "start_ns", c.start_ns);
    integer_at(j, "end_ns", c.end_ns);
    c.bytes = unsigned_at(j, "size_bytes");
    integer_at(j, "device", c.device);
    integer_at(j, "stream", c.stream);
    j.at("kind").get_to(c.kind);
    j.at("src").get_to(c.src);
    j.at("dst").get_to(c.dst);
}

void to_json(json& j, const ThreadInfo& t) {
    j = json{
        {"launcher", t.launcher},
        {"worker", t.worker},
        {"pid", t.pid},
        {"tid", t.tid},
        {"name", t.name},
        {"hostname", t.hostname},
        {"stack_size", t.stack_size},
        {"guard_size", t.guard_size},
        {"blocked_signals", t.blocked_signals},
        {"cpus", t.cpus},
        {"policy", t.policy},
        {"priority", t.priority},
        {"nice", t.nice},
        {"numa_node", t.numa_node},
        {"python_thread", t.python_thread},
        // null: no interpreter existed when the thread was captured.
        {"gil_held", t.gil_held ? json(*t.gil_held) : json(nullptr)},
    };
}

std::string compact_json(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void to_json(json& j, const HelperThread& h) {
    to_json(j, h.thread);
    j["busy"] = h.busy;
    j["busy_dropped"] = h.busy_dropped;
    j["work"] = h.work;
}

// Results written before helpers counted their work have no "work": it stays empty.
void from_json(const json& j, HelperThread& h) {
    from_json(j, h.thread);
    h.busy = j.value("busy", std::vector<std::array<int64_t, 2>>{});
    h.busy_dropped = j.value("busy_dropped", uint64_t(0));
    if (auto w = j.find("work"); w != j.end()) w->get_to(h.work);
}

void from_json(const json& j, ThreadInfo& t) {
    j.at("launcher").get_to(t.launcher);
    integer_at(j, "worker", t.worker);
    integer_at(j, "pid", t.pid);
    integer_at(j, "tid", t.tid);
    j.at("name").get_to(t.name);
    j.at("hostname").get_to(t.hostname);
    integer_at(j, "stack_size", t.stack_size);
    integer_at(j, "guard_size", t.guard_size);
    j.at("blocked_signals").get_to(t.blocked_signals);
    j.at("cpus").get_to(t.cpus);
    j.at("policy").get_to(t.policy);
    integer_at(j, "priority", t.priority);
    integer_at(j, "nice", t.nice);
    integer_at(j, "numa_node", t.numa_node);
    j.at("python_thread").get_to(t.python_thread);
    const json& gil = j.at("gil_held");
    if (gil.is_null()) {
        t.gil_held.reset();
    } else {
        t.gil_held = gil.get<bool>();
    }
}

void to_json(json& j, const RunPosition& p) {
    j = json{{"index", p.index},
             {"label", p.label},
             {"sweep_point", p.sweep_point},
             {"scaling_key", p.scaling_key}};
    if (!p.trials_recorded) return;
    j["trial"] = p.trial;
    j["position"] = p.slot;
    j["base_label"] = p.base_label;
}

void from_json(const json& j, RunPosition& p) {
    integer_at(j, "index", p.index);
    j.at("label").get_to(p.label);
    j.at("sweep_point").get_to(p.sweep_point);
    j.at("scaling_key").get_to(p.scaling_key);
    p.trials_recorded = j.contains("trial");
    p.trial = integer_or(j, "trial", 1);
    p.slot = integer_or(j, "position", p.index);
    p.base_label = j.value("base_label", "");
}

json settings_json(const RunSettings& settings, const RunPosition& position) {
    json j = settings;
    const json at = position;  // named: items() of a temporary would outlive it in the loop
    for (const auto& [key, value] : at.items()) j[key] = value;
    return j;
}

json run_keys_json(const RunResult& r) {
    const RunSettings& s = r.settings;
    return json{{"index", r.position.index},
                {"label", r.position.label},
                {"launcher", s.launcher},
                {"backend", r.backend_used},
                {"threads", s.threads.count},
                {"bytes_per_copy", s.transfer.bytes},
                {"direction", to_string(s.transfer.direction)},
                {"host_memory", to_string(s.transfer.host_memory)},
                {"sweep_point", r.position.sweep_point},
                {"scaling_key", r.position.scaling_key},
                {"trial", r.position.trial},
                {"base_label", r.position.base_label}};
}

namespace {

// `key` of the run's "settings", or the run's own key where an older file's settings lack it.
const json& settings_or_run_key(const json& run, const json& settings, const char* key) {
    const auto it = settings.find(key);
    return it != settings.end() ? *it : run.at(key);
}

// Results from before trials have neither "trial" nor "base_label" in "settings"; their run
// keys say 1 and "" or are absent too.
RunPosition position_from(const json& run, const json& settings) {
    json recorded = json::object();
    for (const char* key : {"index", "label", "sweep_point", "scaling_key"})
        recorded[key] = settings_or_run_key(run, settings, key);
    for (const char* key : {"trial", "position", "base_label"})
        if (const auto it = settings.find(key); it != settings.end()) recorded[key] = *it;
    RunPosition p = recorded.get<RunPosition>();
    if (!p.trials_recorded) {
        p.trial = integer_or(run, "trial", 1);
        p.base_label = run.value("base_label", "");
    }
    return p;
}

// The settings an older file's "settings" may lack but its run keys hold: the value is taken
// from the run key, and the setting stays unrecorded (the report says so, and writing the file
// back leaves it out of "settings" again, as that file had it).
void settings_from_run_keys(const json& run, RunSettings& s) {
    const auto unrecorded = [&](const std::string& dotted) {
        return s.unrecorded.count(dotted) || s.unrecorded.count(dotted.substr(0, dotted.find('.')));
    };
    if (unrecorded("launcher")) run.at("launcher").get_to(s.launcher);
    for (const auto& [run_key, dotted] : {std::pair{"threads", "threads.count"},
                                          {"bytes_per_copy", "transfer.bytes"},
                                          {"direction", "transfer.direction"},
                                          {"host_memory", "transfer.host_memory"}}) {
        if (!unrecorded(dotted)) continue;
        const SettingKey* key = find_setting_key(dotted);
        key->read(json{{key->name, run.at(run_key)}}, s.transfer, s.threads);
    }
}

}  // namespace

void read_settings_and_position(const json& run, RunResult& r) {
    const json& settings = run.at("settings");
    settings.get_to(r.settings);
    settings_from_run_keys(run, r.settings);
    r.position = position_from(run, settings);
}

void to_json(json& j, const RunResult& r) {
    j = run_keys_json(r);
    j["settings"] = settings_json(r.settings, r.position);
    j["status"] = to_string(r.status);
    j["errors"] = r.errors;
    j["notes"] = r.notes;
    j["start_ns"] = r.start_ns;
    j["end_ns"] = r.end_ns;
    j["thread_infos"] = r.threads_info;
    j["helper_threads"] = r.helper_threads;
    if (!r.copy_sources.empty()) {
        j["copy_sources"] = r.copy_sources;
        j["device_copies"] = r.device_copies;
    }
    if (!r.payload_verified.empty())
        j["payload_verified"] = worker_texts_to_json(r.payload_verified);
    if (r.host_activity) j["host_activity"] = *r.host_activity;
    if (!r.stray_threads.empty()) j["stray_threads"] = r.stray_threads;
    if (r.records_file.empty()) {
        j["records"] = r.records;
    } else {  // no "records" key: an older reader fails instead of finding none
        j["records_file"] = r.records_file;
        j["record_count"] = r.records.size();
    }
    if (r.payload) {
        j["payload"] = json{{"name", r.payload->name},
                            {"path", r.payload->path},
                            {"folder", r.payload->folder},
                            {"sha256", r.payload->sha256}};
    }
}

void from_json(const json& j, RunResult& r) {
    read_settings_and_position(j, r);
    j.at("backend").get_to(r.backend_used);
    r.status = run_status_from(j.at("status").get<std::string>());
    j.at("errors").get_to(r.errors);
    j.at("notes").get_to(r.notes);
    integer_at(j, "start_ns", r.start_ns);
    integer_at(j, "end_ns", r.end_ns);
    r.threads_info = each_of<ThreadInfo>(j.at("thread_infos"), "thread_info");
    if (auto f = j.find("records_file"); f != j.end()) {
        f->get_to(r.records_file);  // the records are loaded from that file
    } else {
        r.records = each_of<Record>(j.at("records"), "record");
    }
    // Absent in results written before the staging engine.
    if (auto h = j.find("helper_threads"); h != j.end()) h->get_to(r.helper_threads);
    // Absent unless the payload timed its own copies (w.timed) or checked its bytes.
    if (auto c = j.find("copy_sources"); c != j.end()) c->get_to(r.copy_sources);
    if (auto c = j.find("device_copies"); c != j.end()) c->get_to(r.device_copies);
    if (auto v = j.find("payload_verified"); v != j.end())
        r.payload_verified = worker_texts_from_json(*v);
    // Absent in results written before it was recorded, or where /proc/stat was unreadable.
    if (auto a = j.find("host_activity"); a != j.end() && a->is_object())
        r.host_activity = a->get<HostActivity>();
    // Absent for a run measured without threads left running, and in results from before.
    if (auto t = j.find("stray_threads"); t != j.end()) t->get_to(r.stray_threads);
    // Absent in results written before payloads were recorded.
    if (auto p = j.find("payload"); p != j.end() && p->is_object()) {
        r.payload = PayloadRecord{p->value("name", ""), p->value("path", ""),
                                  p->value("folder", ""), p->value("sha256", "")};
    }
}

json command_to_json(const CommandLine& c) { return json{{"argv", c.argv}, {"cwd", c.cwd}}; }

CommandLine command_from_json(const json& j) {
    CommandLine c;
    if (!j.is_object()) return c;
    c.argv = j.value("argv", std::vector<std::string>{});
    c.cwd = j.value("cwd", std::string());
    return c;
}

void to_json(json& j, const Results& r) {
    j = json{
        {"schema_version", r.schema_version},
        {"tool_version", r.tool_version},
        {"git_describe", r.git_describe},
        {"host", host_json(r.host)},
        {"devices", devices_json(r.devices)},
        {"scenario", r.scenario},
        {"interrupted", r.interrupted},
        {"complete", r.complete},
        {"planned_runs", r.planned_runs},
        {"started_wall_ns", r.started_wall_ns},
        {"runs", r.runs},
    };
    if (!r.sizing.is_null()) j["sizing"] = r.sizing;
    if (!r.notes.empty()) j["notes"] = r.notes;
    if (!r.command.argv.empty()) j["command"] = command_to_json(r.command);
}

json journal_line(const Results& plan, const RunResult& run) {
    json j = run;
    j["plan"] = {{"schema_version", plan.schema_version},
                 {"tool_version", plan.tool_version},
                 {"git_describe", plan.git_describe},
                 {"host", host_json(plan.host)},
                 {"scenario", plan.scenario}};
    if (!plan.command.argv.empty()) j["plan"]["command"] = command_to_json(plan.command);
    return j;
}

bool read_journal_plan(const json& line, Results& r) {
    const auto plan = line.find("plan");
    if (plan == line.end() || !plan->is_object()) return false;
    integer_at(*plan, "schema_version", r.schema_version);
    plan->at("tool_version").get_to(r.tool_version);
    plan->at("git_describe").get_to(r.git_describe);
    r.host = host_from_json(plan->at("host"));
    r.scenario = plan->at("scenario");
    r.command = command_from_json(plan->value("command", json()));
    return true;
}

std::string json_error_text(const std::string& what) {
    const size_t end = what.rfind("] ", what.find(' '));
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2)
                                                                              : what;
}

void from_json(const json& j, Results& r) {
    integer_at(j, "schema_version", r.schema_version);
    j.at("tool_version").get_to(r.tool_version);
    j.at("git_describe").get_to(r.git_describe);
    r.host = host_from_json(j.at("host"));
    r.devices = devices_from_json(j.at("devices"));
    r.scenario = j.at("scenario");
    j.at("interrupted").get_to(r.interrupted);
    // Optional: files written before these keys existed were only ever written complete.
    r.complete = j.value("complete", true);
    r.planned_runs = integer_or(j, "planned_runs", 0);
    integer_at(j, "started_wall_ns", r.started_wall_ns);
    r.runs = each_of<RunResult>(j.at("runs"), "run");
    r.sizing = j.value("sizing", json());
    // Only results read from a damaged journal (and reports of them) have notes.
    r.notes = j.value("notes", std::vector<std::string>{});
    // Absent in results written before the command line was recorded.
    r.command = command_from_json(j.value("command", json()));
}

}  // namespace xfer
