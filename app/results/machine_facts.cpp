#include "results/machine_facts.hpp"

#include <stdexcept>
#include <utility>

namespace xfer {

using nlohmann::json;

namespace {

using Text = std::optional<std::string> HostFacts::*;
using Count = std::optional<int64_t> HostFacts::*;

// Each typed fact under its key in "host", as describe_host() writes it.
const std::pair<const char*, Text> kTexts[] = {
    {"hostname", &HostFacts::hostname},
    {"cpu_model", &HostFacts::cpu_model},
    {"transparent_hugepage", &HostFacts::transparent_hugepage},
    {"kernel", &HostFacts::kernel},
    {"machine", &HostFacts::machine}};
const std::pair<const char*, Count> kCounts[] = {{"logical_cpus", &HostFacts::logical_cpus},
                                                 {"online_cpus", &HostFacts::online_cpus},
                                                 {"numa_nodes", &HostFacts::numa_nodes},
                                                 {"memory_kib", &HostFacts::memory_kib},
                                                 {"page_size", &HostFacts::page_size}};

// `value` into `fact` where it has the fact's type.
bool take(const json& value, std::optional<std::string>& fact) {
    if (!value.is_string()) return false;
    fact = value.get<std::string>();
    return true;
}

bool take(const json& value, std::optional<int64_t>& fact) {
    if (!value.is_number_integer()) return false;
    fact = value.get<int64_t>();
    return true;
}

// Whether `key` is one of `facts` and `value` of its type (then it is taken).
template <class Facts>
bool take_known(const Facts& facts, const std::string& key, const json& value, HostFacts& h) {
    for (const auto& [name, member] : facts)
        if (key == name) return take(value, h.*member);
    return false;
}

void require_object(const json& j, const char* what) {
    if (!j.is_object())
        throw std::runtime_error(std::string(what) + " is " + j.type_name() +
                                 ", not an object as xferlab writes it");
}

HostFacts host_from_object(const json& j) {
    HostFacts h;
    for (const auto& [key, value] : j.items()) {
        if (key == "python" && !value.is_null()) {
            h.python = value;
        } else if (!take_known(kTexts, key, value, h) && !take_known(kCounts, key, value, h)) {
            h.other[key] = value;
        }
    }
    return h;
}

BackendDevices device_from(const std::string& backend, const json& account) {
    BackendDevices d;
    d.backend = backend;
    d.description = account;
    if (!account.is_object()) return d;
    if (auto it = account.find("available"); it != account.end() && it->is_boolean())
        d.available = it->get<bool>();
    if (auto it = account.find("device_count"); it != account.end() && it->is_number_integer())
        d.device_count = it->get<int64_t>();
    if (auto it = account.find("summary"); it != account.end() && it->is_string())
        d.summary = it->get<std::string>();
    return d;
}

}  // namespace

json host_json(const std::optional<HostFacts>& host) {
    if (!host) return json();
    json j = host->other;
    for (const auto& [name, member] : kTexts)
        if ((*host).*member) j[name] = *((*host).*member);
    for (const auto& [name, member] : kCounts)
        if ((*host).*member) j[name] = *((*host).*member);
    if (!host->python.is_null()) j["python"] = host->python;
    return j;
}

std::optional<HostFacts> host_from_json(const json& j) {
    if (j.is_null()) return std::nullopt;
    require_object(j, "host");
    return host_from_object(j);
}

json devices_json(const std::optional<std::vector<BackendDevices>>& devices) {
    if (!devices) return json();
    json j = json::object();
    for (const BackendDevices& d : *devices) j[d.backend] = d.description;
    return j;
}

std::optional<std::vector<BackendDevices>> devices_from_json(const json& j) {
    if (j.is_null()) return std::nullopt;
    require_object(j, "devices");
    std::vector<BackendDevices> out;
    for (const auto& [backend, account] : j.items()) out.push_back(device_from(backend, account));
    return out;
}

}  // namespace xfer
