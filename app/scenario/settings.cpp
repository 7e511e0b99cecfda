#include "scenario/settings.hpp"

#include <algorithm>
#include <climits>
#include <csignal>
#include <functional>
#include <map>

#include "results/serialize.hpp"
#include "scenario/suggest.hpp"
#include "scenario/unit_parse.hpp"
#include "scenario/units.hpp"
#include "system/signal_names.hpp"
#include "system/thread_info.hpp"

namespace xfer::scenario_internal {

using nlohmann::json;

namespace {

constexpr int kMaxThreads = 4096;
constexpr uint64_t kMinStack = 16 * 1024;  // PTHREAD_STACK_MIN on x86-64
constexpr int kMaxCpu = 1023;              // cpu_set_t holds CPUs 0..1023

SettingError expected(const std::string& what, const json& v) {
    return {"expected " + what + "; got " + describe(v)};
}

// Plain decimal digits, as in "numa:1" or "fifo:10"; nullopt for anything else.
std::optional<int> plain_int(const std::string& s) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    int n = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// An integer in [lo, hi]; `why` explains a bound that is not obvious (a sanity limit).
SettingResult want_int(const json& v, int64_t lo, int64_t hi, int& out,
                       const std::string& why = "") {
    std::string range = hi == INT_MAX
                            ? "an integer >= " + std::to_string(lo)
                            : "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!why.empty()) range += " (" + why + ")";
    if (!v.is_number_integer()) return expected(range, v);
    // Unsigned JSON integers above INT64_MAX only come from a hand-built JSON value.
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
        return expected(range, v);
    const int64_t n = v.get<int64_t>();
    if (n < lo || n > hi) return expected(range, v);
    out = int(n);
    return std::nullopt;
}

// One of `names` (string values); the index in `names`.
std::optional<size_t> index_of(const json& v, const std::vector<std::string>& names) {
    if (!v.is_string()) return std::nullopt;
    auto it = std::find(names.begin(), names.end(), v.get<std::string>());
    if (it == names.end()) return std::nullopt;
    return size_t(it - names.begin());
}

template <class E>
SettingResult want_enum(const json& v, const std::vector<std::pair<std::string, E>>& choices,
                        E& out) {
    std::vector<std::string> names;
    for (const auto& c : choices) names.push_back(c.first);
    auto i = index_of(v, names);
    if (!i) return not_one_of(v, names);
    out = choices[*i].second;
    return std::nullopt;
}

// The largest size any key takes: more than any machine's memory, and small enough that a
// run's whole need (kMaxThreads workers x two buffers x this, rounded up to huge pages) stays
// far from 2^64: the memory checks compare it instead of wrapping around to "fits".
constexpr uint64_t kMaxSize = uint64_t(1) << 50;  // 1 PiB = 1024 TiB
static_assert(kMaxSize * 2 * uint64_t(kMaxThreads) <= uint64_t(1) << 63,
              "a run's buffers must leave half of uint64_t's range for rounding and extras");

// A size from a string ("64MiB") or an integer number of bytes, at most kMaxSize.
SettingResult want_size(const json& v, const std::string& what, uint64_t& out) {
    uint64_t size = 0;
    if (v.is_number_integer()) {
        if (!v.is_number_unsigned() && v.get<int64_t>() < 0)
            return expected(what + ", not a negative number", v);
        size = v.get<uint64_t>();
    } else if (v.is_string()) {
        std::string why;
        auto parsed = parse_size(v.get<std::string>(), &why);
        if (!parsed) return SettingError{"expected " + what + "; got " + describe(v) + ": " + why};
        size = *parsed;
    } else {
        return expected(what, v);
    }
    if (size > kMaxSize)
        return SettingError{"expected " + what +
                            " of at most 1024TiB (more than any machine's "
                            "memory); got " +
                            describe(v)};
    out = size;
    return std::nullopt;
}

// "prefix:<duration>" -> the duration.
SettingResult want_duration_arg(const json& v, const std::string& form, const std::string& arg,
                                int64_t& out) {
    std::string why;
    auto ns = parse_duration_ns(arg, &why);
    if (!ns) {
        return SettingError{form + " needs a duration such as \"100us\"; got " + describe(v) +
                            ": " + why};
    }
    out = *ns;
    return std::nullopt;
}

// A non-empty array of integers in [0, hi], e.g. devices or CPUs.
SettingResult want_int_list(const json& v, const std::string& one, const std::string& many, int hi,
                            std::vector<int>& out) {
    if (v.empty()) return SettingError{"an empty list selects nothing: give at least one " + one};
    std::vector<int> list;
    for (size_t i = 0; i < v.size(); ++i) {
        int n = 0;
        if (want_int(v[i], 0, hi, n)) {
            return SettingError{"expected " + many + " from 0 to " + std::to_string(hi) +
                                    "; element " + std::to_string(i + 1) + " is " + describe(v[i]),
                                int(i)};
        }
        list.push_back(n);
    }
    out = std::move(list);
    return std::nullopt;
}

// The signal names for did-you-mean: every named signal below SIGRTMIN, and the realtime bounds.
const std::vector<std::string>& known_signal_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (int n = 1; n < SIGRTMIN; ++n) {
            std::string name = signal_name(n);
            if (name != "SIG" + std::to_string(n)) v.push_back(name);
        }
        v.push_back("SIGRTMIN");
        v.push_back("SIGRTMAX");
        return v;
    }();
    return names;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

using Apply = std::function<SettingResult(const json&, TransferSpec&, ThreadSpec&)>;

// ---- [transfer] -----------------------------------------------------------------------------

SettingResult host_memory(const json& v, HostMemory& out) {
    static const std::vector<std::pair<std::string, HostMemoryKind>> kinds = {
        {"pageable", HostMemoryKind::pageable},
        {"hugepage", HostMemoryKind::hugepage},
        {"pinned", HostMemoryKind::pinned},
        {"registered", HostMemoryKind::registered},
        {"write-combined", HostMemoryKind::write_combined}};
    if (v.is_string() && starts_with(v.get<std::string>(), "numa:")) {
        auto node = plain_int(v.get<std::string>().substr(5));
        if (!node || *node > 1023) {
            return expected("numa:<node> with a NUMA node number from 0 to 1023, e.g. \"numa:0\"",
                            v);
        }
        out = HostMemory{HostMemoryKind::numa, *node};
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (const auto& k : kinds) names.push_back(k.first);
    names.push_back("numa:<node>");
    auto i = index_of(v, names);
    if (!i || *i == kinds.size()) return not_one_of(v, names);
    out = HostMemory{kinds[*i].second, -1};
    return std::nullopt;
}

SettingResult devices(const json& v, std::vector<int>& out) {
    const std::string what = "\"round-robin\" or an array of device indices, e.g. [0, 1]";
    if (v.is_string()) {
        if (v.get<std::string>() == "round-robin") {
            out.clear();
            return std::nullopt;
        }
        SettingError err = expected(what, v);
        err.message += did_you_mean(v.get<std::string>(), {"round-robin"});
        return err;
    }
    if (!v.is_array()) return expected(what, v);
    return want_int_list(v, "device index", "device indices", 1023, out);
}

// ---- [threads] ------------------------------------------------------------------------------

SettingResult start(const json& v, StartSpec& out) {
    if (v.is_string() && starts_with(v.get<std::string>(), "staggered:")) {
        int64_t ns = 0;
        if (auto err =
                want_duration_arg(v, "staggered:<duration>", v.get<std::string>().substr(10), ns)) {
            return err;
        }
        out = StartSpec{StartKind::staggered, ns};
        return std::nullopt;
    }
    static const std::vector<std::string> names = {"barrier", "free", "staggered:<duration>"};
    auto i = index_of(v, names);
    if (!i || *i == 2) return not_one_of(v, names);
    out = StartSpec{*i == 0 ? StartKind::barrier : StartKind::free, 0};
    return std::nullopt;
}

SettingResult stack_size(const json& v, uint64_t& out) {
    const std::string what = "\"default\" or a size of at least 16 KiB, e.g. \"256KiB\"";
    if (v.is_string() && v.get<std::string>() == "default") {
        out = 0;
        return std::nullopt;
    }
    uint64_t size = 0;
    if (auto err = want_size(v, what, size)) return err;
    if (size < kMinStack) {
        return SettingError{"expected " + what + "; got " + describe(v) + " (" + format_size(size) +
                            ", below the 16 KiB a thread needs)"};
    }
    out = size;
    return std::nullopt;
}

SettingResult signal_mask(const json& v, SignalMaskSpec& out) {
    static const std::vector<std::pair<std::string, SignalMaskKind>> kinds = {
        {"inherit", SignalMaskKind::inherit},
        {"block-all", SignalMaskKind::block_all},
        {"unblock-all", SignalMaskKind::unblock_all}};
    if (v.is_string()) {
        SignalMaskKind kind{};
        if (auto err = want_enum(v, kinds, kind)) {
            err->message += "; or an array of signal names, e.g. [\"SIGINT\", \"SIGTERM\"]";
            return err;
        }
        out = SignalMaskSpec{kind, {}};
        return std::nullopt;
    }
    if (!v.is_array()) {
        return expected(
            "\"inherit\", \"block-all\", \"unblock-all\" or an array of signal names, e.g. "
            "[\"SIGINT\"]",
            v);
    }
    if (v.empty()) {
        return SettingError{
            "an empty list blocks nothing: write \"unblock-all\" (block nothing) or \"inherit\""};
    }
    std::vector<int> signals;
    for (size_t i = 0; i < v.size(); ++i) {
        const json& e = v[i];
        if (!e.is_string()) {
            return SettingError{expected("a signal name such as \"SIGINT\"", e).message, int(i)};
        }
        const std::string name = e.get<std::string>();
        auto signo = signal_number(name);
        if (!signo) {
            return SettingError{"unknown signal " + describe(e) +
                                    did_you_mean(name, known_signal_names()) +
                                    "; names are as in signal(7): \"SIGINT\", \"SIGUSR1\", "
                                    "\"SIGRTMIN+2\", ...",
                                int(i)};
        }
        if (*signo == SIGKILL || *signo == SIGSTOP) {
            return SettingError{signal_name(*signo) +
                                    " cannot be blocked (the kernel ignores it "
                                    "in a mask)",
                                int(i)};
        }
        if (*signo < SIGRTMIN && signal_name(*signo) == "SIG" + std::to_string(*signo)) {
            // 32 and 33 on glibc: its own cancellation and setxid signals, which it refuses to
            // put in a mask.
            return SettingError{describe(e) +
                                    " is reserved by the C library (realtime signals "
                                    "start at SIGRTMIN)",
                                int(i)};
        }
        if (std::find(signals.begin(), signals.end(), *signo) == signals.end()) {
            signals.push_back(*signo);
        }
    }
    out = SignalMaskSpec{SignalMaskKind::list, std::move(signals)};
    return std::nullopt;
}

SettingResult affinity(const json& v, AffinitySpec& out) {
    static const std::vector<std::pair<std::string, AffinityKind>> kinds = {
        {"none", AffinityKind::none},
        {"compact", AffinityKind::compact},
        {"scatter", AffinityKind::scatter},
        {"gpu-local", AffinityKind::gpu_local}};
    if (v.is_string()) {
        AffinityKind kind{};
        if (auto err = want_enum(v, kinds, kind)) {
            err->message += "; or an array of CPU numbers, e.g. [0, 2]";
            return err;
        }
        out = AffinitySpec{kind, {}};
        return std::nullopt;
    }
    if (!v.is_array()) {
        return expected(
            "\"none\", \"compact\", \"scatter\", \"gpu-local\" or an array of CPU numbers, e.g. "
            "[0, 2]",
            v);
    }
    std::vector<int> cpus;
    if (auto err = want_int_list(v, "CPU number", "CPU numbers", kMaxCpu, cpus)) return err;
    out = AffinitySpec{AffinityKind::list, std::move(cpus)};
    return std::nullopt;
}

SettingResult policy(const json& v, PolicySpec& out) {
    static const std::vector<std::string> names = {"other", "batch", "idle", "fifo:<prio>",
                                                   "rr:<prio>"};
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        for (auto [prefix, p] : {std::pair{std::string("fifo:"), SchedPolicy::fifo},
                                 std::pair{std::string("rr:"), SchedPolicy::rr}}) {
            if (!starts_with(s, prefix)) continue;
            auto prio = plain_int(s.substr(prefix.size()));
            if (!prio || *prio < 1 || *prio > 99) {
                return expected(
                    prefix + "<prio> with a priority from 1 to 99, e.g. \"" + prefix + "10\"", v);
            }
            out = PolicySpec{p, *prio};
            return std::nullopt;
        }
    }
    auto i = index_of(v, names);
    if (!i || *i > 2) return not_one_of(v, names);
    static const SchedPolicy plain[] = {SchedPolicy::other, SchedPolicy::batch, SchedPolicy::idle};
    out = PolicySpec{plain[*i], 0};
    return std::nullopt;
}

SettingResult between(const json& v, BetweenSpec& out) {
    for (const auto& [prefix, kind] : {std::pair{std::string("sleep:"), BetweenKind::sleep},
                                       std::pair{std::string("spin:"), BetweenKind::spin}}) {
        if (!v.is_string() || !starts_with(v.get<std::string>(), prefix)) continue;
        int64_t ns = 0;
        if (auto err = want_duration_arg(v, prefix + "<duration>",
                                         v.get<std::string>().substr(prefix.size()), ns)) {
            return err;
        }
        out = BetweenSpec{kind, ns};
        return std::nullopt;
    }
    static const std::vector<std::string> names = {"none", "yield", "sleep:<duration>",
                                                   "spin:<duration>"};
    auto i = index_of(v, names);
    if (!i || *i >= 2) return not_one_of(v, names);
    out = BetweenSpec{*i == 0 ? BetweenKind::none : BetweenKind::yield, 0};
    return std::nullopt;
}

struct Key {
    std::string name;
    Apply apply;
};

const std::vector<Key>& transfer_keys() {
    static const std::vector<Key> keys = {
        {"direction",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<Direction>(v,
                                         {{"h2d", Direction::h2d},
                                          {"d2h", Direction::d2h},
                                          {"d2d", Direction::d2d},
                                          {"h2h", Direction::h2h},
                                          {"p2p", Direction::p2p}},
                                         t.direction);
         }},
        {"bytes",
         [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
             uint64_t b = 0;
             const std::string what = "a size such as \"64MiB\" or an integer number of bytes";
             if (auto err = want_size(v, what, b)) return err;
             if (b == 0)
                 return SettingError{"a copy must move at least 1 byte; got " + describe(v)};
             t.bytes = b;
             return std::nullopt;
         }},
        {"host_memory",
         [](const json& v, TransferSpec& t, ThreadSpec&) { return host_memory(v, t.host_memory); }},
        {"first_touch",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<FirstTouch>(v,
                                          {{"worker", FirstTouch::worker},
                                           {"main", FirstTouch::main},
                                           {"none", FirstTouch::none}},
                                          t.first_touch);
         }},
        {"devices",
         [](const json& v, TransferSpec& t, ThreadSpec&) { return devices(v, t.devices); }},
        {"api",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<CopyApi>(v, {{"sync", CopyApi::sync}, {"async", CopyApi::async}},
                                       t.api);
         }},
        {"stream",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<StreamKind>(v,
                                          {{"legacy", StreamKind::legacy},
                                           {"per-thread", StreamKind::per_thread},
                                           {"non-blocking", StreamKind::non_blocking}},
                                          t.stream);
         }},
        {"timing",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<TimingMode>(v,
                                          {{"auto", TimingMode::auto_},
                                           {"host", TimingMode::host},
                                           {"events", TimingMode::events},
                                           {"cupti", TimingMode::cupti}},
                                          t.timing);
         }},
        {"context",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<ContextKind>(
                 v, {{"primary", ContextKind::primary}, {"per-worker", ContextKind::per_worker}},
                 t.context);
         }},
        {"path",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<CopyPath>(v,
                                        {{"driver", CopyPath::driver},
                                         {"staged", CopyPath::staged},
                                         {"register", CopyPath::register_}},
                                        t.path);
         }},
        {"repetitions",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_int(v, 1, INT_MAX, t.repetitions, "each run copies at least once");
         }},
        {"warmup", [](const json& v, TransferSpec& t,
                      ThreadSpec&) { return want_int(v, 0, INT_MAX, t.warmup); }},
        {"verify",
         [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
             if (!v.is_boolean()) return expected("true or false", v);
             t.verify = v.get<bool>();
             return std::nullopt;
         }},
    };
    return keys;
}

// [staging]: the knobs of transfer.path = "staged". Zero helper threads or a chunk of zero
// bytes cannot move anything: refused here rather than at run time.
constexpr int kMaxStagingThreads = 256;
constexpr int kMaxStagingBuffers = 64;
constexpr uint64_t kMinStagingChunk = 4096;

const std::vector<Key>& staging_keys() {
    static const std::vector<Key> keys = {
        {"threads",
         [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
             if (v.is_string() && v == "auto") {
                 t.staging.threads = 0;
                 return std::nullopt;
             }
             if (v.is_string()) return not_one_of(v, {"auto"});
             return want_int(v, 1, kMaxStagingThreads, t.staging.threads,
                             "or \"auto\"; zero helper threads would move nothing");
         }},
        {"chunk",
         [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
             if (v.is_string() && v == "auto") {
                 t.staging.chunk = 0;
                 return std::nullopt;
             }
             uint64_t b = 0;
             if (auto err = want_size(v, "a size such as \"8MiB\" or \"auto\"", b)) return err;
             if (b < kMinStagingChunk)
                 return SettingError{"a staging chunk must be at least 4KiB; got " + describe(v)};
             t.staging.chunk = b;
             return std::nullopt;
         }},
        {"buffers",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_int(v, 1, kMaxStagingBuffers, t.staging.buffers,
                             "page-locked chunk buffers per helper thread");
         }},
        {"affinity",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<StagingAffinity>(
                 v, {{"gpu-local", StagingAffinity::gpu_local}, {"none", StagingAffinity::none}},
                 t.staging.affinity);
         }},
        {"stores",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<StagingStores>(v,
                                             {{"auto", StagingStores::auto_},
                                              {"cached", StagingStores::cached},
                                              {"streaming", StagingStores::streaming}},
                                             t.staging.stores);
         }},
        {"taper",
         [](const json& v, TransferSpec& t, ThreadSpec&) -> SettingResult {
             if (!v.is_boolean()) return expected("true or false", v);
             t.staging.taper = v.get<bool>();
             return std::nullopt;
         }},
        {"streams",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<StagingStreams>(
                 v, {{"per-helper", StagingStreams::per_helper}, {"one", StagingStreams::one}},
                 t.staging.streams);
         }},
        {"wait",
         [](const json& v, TransferSpec& t, ThreadSpec&) {
             return want_enum<StagingWait>(
                 v, {{"spin", StagingWait::spin}, {"block", StagingWait::block}}, t.staging.wait);
         }},
    };
    return keys;
}

const std::vector<Key>& thread_keys() {
    static const std::vector<Key> keys = {
        {"count",
         [](const json& v, TransferSpec&, ThreadSpec& t) {
             return want_int(v, 1, kMaxThreads, t.count, "more than 4096 threads is a typo");
         }},
        {"start", [](const json& v, TransferSpec&, ThreadSpec& t) { return start(v, t.start); }},
        {"stack_size",
         [](const json& v, TransferSpec&, ThreadSpec& t) { return stack_size(v, t.stack_size); }},
        {"signal_mask",
         [](const json& v, TransferSpec&, ThreadSpec& t) { return signal_mask(v, t.signal_mask); }},
        {"affinity",
         [](const json& v, TransferSpec&, ThreadSpec& t) { return affinity(v, t.affinity); }},
        {"policy", [](const json& v, TransferSpec&, ThreadSpec& t) { return policy(v, t.policy); }},
        {"between",
         [](const json& v, TransferSpec&, ThreadSpec& t) { return between(v, t.between); }},
    };
    return keys;
}

const Key* find_key(const std::string& dotted) {
    auto dot = dotted.find('.');
    if (dot == std::string::npos) return nullptr;
    const std::string table = dotted.substr(0, dot), key = dotted.substr(dot + 1);
    const std::vector<Key>* keys = table == "transfer"  ? &transfer_keys()
                                   : table == "threads" ? &thread_keys()
                                   : table == "staging" ? &staging_keys()
                                                        : nullptr;
    if (!keys) return nullptr;
    for (const auto& k : *keys) {
        if (k.name == key) return &k;
    }
    return nullptr;
}

std::string compact_duration(int64_t ns) {
    std::string s = duration_text(ns);
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
}

}  // namespace

std::string describe(const json& v) {
    switch (v.type()) {
        case json::value_t::string:
            return "\"" + v.get<std::string>() + "\"";
        case json::value_t::boolean:
            return std::string("a boolean (") + (v.get<bool>() ? "true" : "false") + ")";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
            return "an integer (" + v.dump() + ")";
        case json::value_t::number_float:
            return "a float (" + v.dump() + ")";
        case json::value_t::array:
            return "an array";
        case json::value_t::object:
            return "a table";
        default:
            return "nothing";
    }
}

std::string quoted_list(const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) s += i + 1 == names.size() ? " or " : ", ";
        s += "\"" + names[i] + "\"";
    }
    return s;
}

SettingError not_one_of(const json& v, const std::vector<std::string>& allowed) {
    std::string msg = "expected " + (allowed.size() == 1 ? std::string() : "one of ") +
                      quoted_list(allowed) + "; got " + describe(v);
    if (v.is_string()) {
        // Compare against "numa:" rather than "numa:<node>" so that "numa" still finds it.
        std::vector<std::string> bare;
        for (const auto& a : allowed) bare.push_back(a.substr(0, a.find('<')));
        if (auto c = closest(v.get<std::string>(), bare)) {
            const size_t i = size_t(std::find(bare.begin(), bare.end(), *c) - bare.begin());
            msg += " (did you mean '" + allowed[i] + "'?)";
        }
    }
    return {msg};
}

const std::vector<std::string>& setting_tables() {
    static const std::vector<std::string> tables = {"transfer", "threads", "staging"};
    return tables;
}

const std::vector<std::string>& setting_keys(const std::string& table) {
    static const std::map<std::string, std::vector<std::string>> names = [] {
        std::map<std::string, std::vector<std::string>> m;
        for (const auto& k : transfer_keys()) m["transfer"].push_back(k.name);
        for (const auto& k : thread_keys()) m["threads"].push_back(k.name);
        for (const auto& k : staging_keys()) m["staging"].push_back(k.name);
        return m;
    }();
    static const std::vector<std::string> none;
    auto it = names.find(table);
    return it == names.end() ? none : it->second;
}

std::vector<std::string> all_setting_keys() {
    std::vector<std::string> all;
    for (const std::string& table : setting_tables()) {
        const std::vector<std::string>& keys = setting_keys(table);  // a static table's entry
        for (const auto& k : keys) all.push_back(table + "." + k);
    }
    return all;
}

bool is_setting_key(const std::string& dotted) { return find_key(dotted) != nullptr; }

SettingResult apply_setting(const std::string& dotted, const json& value, TransferSpec& transfer,
                            ThreadSpec& threads) {
    const Key* key = find_key(dotted);
    if (!key) return SettingError{"unknown key"};
    // Validate on copies: a rejected value leaves the specs as they were.
    TransferSpec t = transfer;
    ThreadSpec th = threads;
    if (auto err = key->apply(value, t, th)) return err;
    transfer = std::move(t);
    threads = std::move(th);
    return std::nullopt;
}

json transfer_to_json(const TransferSpec& t) {
    json j;
    j["direction"] = to_string(t.direction);
    j["bytes"] = t.bytes;
    j["bytes_text"] = format_size(t.bytes);
    j["host_memory"] = to_string(t.host_memory);
    j["first_touch"] = to_string(t.first_touch);
    j["devices"] = t.devices.empty() ? json("round-robin") : json(t.devices);
    j["api"] = to_string(t.api);
    j["stream"] = to_string(t.stream);
    j["timing"] = to_string(t.timing);
    j["context"] = to_string(t.context);
    j["path"] = to_string(t.path);
    j["repetitions"] = t.repetitions;
    j["warmup"] = t.warmup;
    j["verify"] = t.verify;
    return j;
}

json staging_to_json(const StagingSpec& s) {
    json j;
    j["threads"] = s.threads > 0 ? json(s.threads) : json("auto");
    j["chunk"] = s.chunk > 0 ? json(format_size(s.chunk)) : json("auto");
    j["chunk_bytes"] = s.chunk;
    j["buffers"] = s.buffers;
    j["affinity"] = to_string(s.affinity);
    j["stores"] = to_string(s.stores);
    j["taper"] = s.taper;
    j["streams"] = to_string(s.streams);
    j["wait"] = to_string(s.wait);
    return j;
}

json threads_to_json(const ThreadSpec& t) {
    json j;
    j["count"] = t.count;
    switch (t.start.kind) {
        case StartKind::barrier:
            j["start"] = "barrier";
            break;
        case StartKind::free:
            j["start"] = "free";
            break;
        case StartKind::staggered:
            j["start"] = "staggered:" + compact_duration(t.start.stagger_ns);
            break;
    }
    j["start_stagger_ns"] = t.start.stagger_ns;
    j["stack_size"] = t.stack_size;
    j["stack_size_text"] = t.stack_size ? format_size(t.stack_size) : "default";
    j["guard_size"] = t.guard_size;
    j["guard_size_text"] = t.guard_size ? format_size(t.guard_size) : "default";
    switch (t.signal_mask.kind) {
        case SignalMaskKind::inherit:
            j["signal_mask"] = "inherit";
            break;
        case SignalMaskKind::block_all:
            j["signal_mask"] = "block-all";
            break;
        case SignalMaskKind::unblock_all:
            j["signal_mask"] = "unblock-all";
            break;
        case SignalMaskKind::list: {
            json names = json::array();
            for (int s : t.signal_mask.signals) names.push_back(signal_name(s));
            j["signal_mask"] = names;
            break;
        }
    }
    switch (t.affinity.kind) {
        case AffinityKind::none:
            j["affinity"] = "none";
            break;
        case AffinityKind::compact:
            j["affinity"] = "compact";
            break;
        case AffinityKind::scatter:
            j["affinity"] = "scatter";
            break;
        case AffinityKind::gpu_local:
            j["affinity"] = "gpu-local";
            break;
        case AffinityKind::list:
            j["affinity"] = t.affinity.cpus;
            break;
    }
    std::string policy = to_string(t.policy.policy);
    if (t.policy.policy == SchedPolicy::fifo || t.policy.policy == SchedPolicy::rr) {
        policy += ":" + std::to_string(t.policy.priority);
    }
    j["policy"] = policy;
    switch (t.between.kind) {
        case BetweenKind::none:
            j["between"] = "none";
            break;
        case BetweenKind::yield:
            j["between"] = "yield";
            break;
        case BetweenKind::sleep:
            j["between"] = "sleep:" + compact_duration(t.between.sleep_ns);
            break;
        case BetweenKind::spin:
            j["between"] = "spin:" + compact_duration(t.between.sleep_ns);
            break;
    }
    j["between_sleep_ns"] = t.between.sleep_ns;
    return j;
}

std::string value_text(const json& value) {
    return value.is_string() ? value.get<std::string>() : compact_json(value);
}

}  // namespace xfer::scenario_internal
