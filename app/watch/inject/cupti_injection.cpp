#include "watch/inject/cupti_injection.hpp"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "watch/capture.hpp"
#include "watch/inject/activity_buffers.hpp"
#include "watch/inject/call_parameters.hpp"
#include "watch/record_writer.hpp"

namespace xfer::watch {
namespace {

int64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

uint64_t CUPTIAPI monotonic_timestamp() { return uint64_t(monotonic_ns()); }

// CLOCK_MONOTONIC - CUPTI clock, from the tightest of several samples: the conversion where the
// timestamp callback did not take.
int64_t sample_offset() {
    int64_t best_gap = std::numeric_limits<int64_t>::max(), best = 0;
    for (int i = 0; i < 16; ++i) {
        uint64_t c = 0;
        const int64_t t0 = monotonic_ns();
        if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) continue;
        const int64_t t1 = monotonic_ns();
        if (t1 - t0 < best_gap) {
            best_gap = t1 - t0;
            best = t0 + (t1 - t0) / 2 - int64_t(c);
        }
    }
    return best;
}

// Which callback ids of a domain are memsets (the others enabled are memcpys).
std::vector<bool> g_memset[2];

void say(const std::string& text) {
    std::fprintf(stderr, "xferlab watch: %s\n", text.c_str());
    Capture::instance().note(text);
}

// The driver's functions, from the driver that loaded this library (no link to libcuda: the
// library then loads, and says why it records nothing, where there is no driver at all).
template <typename F>
F driver_function(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// The device of a new context: its PCI address and the NUMA node sysfs gives it, once each.
void device_of(CUcontext context) {
    static std::mutex mutex;
    static std::set<uint32_t> seen;
    uint32_t id = 0;
    if (cuptiGetDeviceId(context, &id) != CUPTI_SUCCESS) return;
    {
        std::lock_guard lock(mutex);
        if (!seen.insert(id).second) return;
    }
    static const auto get = driver_function<CUresult (*)(CUdevice*, int)>("cuDeviceGet");
    static const auto get_name =
        driver_function<CUresult (*)(char*, int, CUdevice)>("cuDeviceGetName");
    static const auto get_bus =
        driver_function<CUresult (*)(char*, int, CUdevice)>("cuDeviceGetPCIBusId");
    xw_device d{};
    d.device = id;
    d.numa_node = -1;
    CUdevice dev = 0;
    if (get && get(&dev, int(id)) == CUDA_SUCCESS) {
        if (get_name) get_name(d.name, int(sizeof d.name), dev);
        char bus[32] = {};
        if (get_bus && get_bus(bus, int(sizeof bus), dev) == CUDA_SUCCESS) {
            std::string b(bus);
            for (char& c : b) c = char(std::tolower(static_cast<unsigned char>(c)));
            std::snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "%s", b.c_str());
            std::ifstream node("/sys/bus/pci/devices/" + b + "/numa_node");
            if (!(node >> d.numa_node)) d.numa_node = -1;
        }
    }
    Capture::instance().device(d);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
    if (!data) return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
            device_of(static_cast<const CUpti_ResourceData*>(data)->context);
        return;
    }
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    const int d = domain == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : 0;
    ApiCall call;
    call.domain = d ? XW_DRIVER : XW_RUNTIME;
    call.cbid = cbid;
    call.name = cb->functionName;
    call.correlation = cb->correlationId;
    call.memset = cbid < g_memset[d].size() && g_memset[d][cbid];
    Capture& capture = Capture::instance();
    if (cb->callbackSite == CUPTI_API_ENTER) {
        read_call_parameters(domain, cbid, cb->functionParams, call);
        capture.api_enter(call);
    } else {
        const int result =
            cb->functionReturnValue ? *static_cast<const int*>(cb->functionReturnValue) : 0;
        capture.api_exit(call, result);
    }
}

// Every memcpy and memset callback of a domain, found by name: whichever variant (2D, 3D,
// peer, batch, per-thread stream) a framework calls.
bool enable_domain(CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain, uint32_t count) {
    const int d = domain == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : 0;
    g_memset[d].assign(count, false);
    for (uint32_t id = 1; id < count; ++id) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name) continue;
        const bool memset = std::strstr(name, "emset") != nullptr;
        if (!memset && !std::strstr(name, "emcpy")) continue;
        g_memset[d][id] = memset;
        if (cuptiEnableCallback(1, sub, domain, id) != CUPTI_SUCCESS) return false;
    }
    return true;
}

void at_exit() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const ActivityCounts counts = activity_counts();
    xw_end e{};
    e.dropped = counts.dropped;
    e.incomplete = counts.incomplete;
    e.extra_buffers = counts.refused_buffers;
    Capture::instance().end(e);
    process_writer().close();
}

const char* cupti_text(CUptiResult r) {
    const char* s = nullptr;
    return cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s ? s : "unknown CUPTI error";
}

int initialize() {
    Capture& capture = Capture::instance();
    if (const std::string why = capture.start_from_environment(); !why.empty()) {
        std::fprintf(stderr, "xferlab watch: not recording this process: %s\n", why.c_str());
        return 1;
    }
    // Before any activity kind is enabled, as CUPTI requires.
    const bool callback =
        cuptiActivityRegisterTimestampCallback(monotonic_timestamp) == CUPTI_SUCCESS;
    capture.clock(callback, callback ? 0 : sample_offset());
    register_activity_buffers();
    CUpti_SubscriberHandle sub = nullptr;
    const CUptiResult r = cuptiSubscribe(&sub, on_callback, nullptr);
    if (r != CUPTI_SUCCESS) {
        say(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                ? "another CUPTI client is subscribed: not recorded"
                : std::string("CUPTI: ") + cupti_text(r));
        return 1;
    }
    const bool enabled =
        enable_domain(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE) &&
        enable_domain(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE) &&
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED) == CUPTI_SUCCESS;
    for (CUpti_ActivityKind kind :
         {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
        if (cuptiActivityEnable(kind) != CUPTI_SUCCESS) say("CUPTI refused an activity kind");
    if (!enabled) say("CUPTI refused a callback: some calls are not recorded");
    // A program that is killed loses at most this much of its activity (milliseconds).
    cuptiActivityFlushPeriod(100);
    std::atexit(at_exit);
    return 1;
}

}  // namespace
}  // namespace xfer::watch

extern "C" int InitializeInjection(void) {
    static std::atomic<bool> done{false};
    if (done.exchange(true)) return 1;
    return xfer::watch::initialize();
}
