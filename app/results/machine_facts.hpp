#pragma once
// The machine a result came from and the devices of each backend it ran on, typed once where
// results are made (run/plan/plan_execution.cpp) or read, so that a reporter reads fields and never
// a JSON key (as Google Benchmark hands its reporters a typed context). Their file form is
// results.json's "host" and "devices" (to_json/from_json here); what this xferlab does not read
// of them is kept and written back as it was read.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

// "host": system/host_description.cpp's describe_host(), plus the embedded Python. A fact is
// absent (nullopt) where the file does not record it.
struct HostFacts {
    std::optional<std::string> hostname;
    std::optional<std::string> cpu_model;
    std::optional<int64_t> logical_cpus;
    std::optional<int64_t> online_cpus;
    std::optional<int64_t> numa_nodes;
    std::optional<std::string> transparent_hugepage;  // "always [madvise] never"
    std::optional<std::string> kernel;                // "Linux 6.1.0"
    std::optional<std::string> machine;               // "x86_64"
    std::optional<int64_t> memory_kib;                // MemTotal; -1 where unreadable
    std::optional<int64_t> page_size;
    // Which Python is embedded, as python/ describes it (python_description(): whether it
    // started, its version, paths, ...); null where not recorded. No reporter reads it.
    nlohmann::json python;
    // The keys this xferlab does not know, and known keys whose value is not of their type
    // (another program's file), as read.
    nlohmann::json other = nlohmann::json::object();

    bool operator==(const HostFacts&) const = default;
};

// One backend's account of its devices (Backend::describe(); `xferlab devices` prints the same),
// under the name the plan chose for it in "devices". (engine/'s DeviceFacts are what the staging
// engine knows of one device.)
struct BackendDevices {
    std::string backend;                  // "host", "cuda", "auto"
    std::optional<bool> available;        // cuda
    std::optional<int64_t> device_count;  // cuda
    std::string summary;                  // cuda: "1 device: 0 NVIDIA H200 (sm_90, 140 GiB)"
    // The whole account as the backend gave it (devices, topology, CUPTI, ...): written back
    // as is.
    nlohmann::json description = nlohmann::json::object();

    bool operator==(const BackendDevices&) const = default;
};

// results.json's "host" and "devices" (the same in results.sqlite's meta table and a journal
// line's plan), null for nullopt: not recorded (results read from a journal name no devices).
// The readers throw std::runtime_error for any other value that is not an object: no xferlab
// wrote one. "devices" is {backend name: its account, ...}, in name order.
nlohmann::json host_json(const std::optional<HostFacts>& host);
std::optional<HostFacts> host_from_json(const nlohmann::json& j);
nlohmann::json devices_json(const std::optional<std::vector<BackendDevices>>& devices);
std::optional<std::vector<BackendDevices>> devices_from_json(const nlohmann::json& j);

}  // namespace xfer
