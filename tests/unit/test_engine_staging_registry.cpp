// The engine registry (engine/staging_registry.hpp): the share arithmetic, registrations in
// one process, four processes of which one is killed with SIGKILL, and an engine whose helpers
// only partly take work. Every test uses a registry file of its own (ctest runs tests at once).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/auto_helpers.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "engine/staging_registry.hpp"
#include "engine/stats_probe.hpp"
#include "support/catch.hpp"
#include "support/copy_tags.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

// A folder of its own under the temporary directory, removed at the end.
struct RegTempDir {
    std::filesystem::path dir;
    RegTempDir() {
        std::string templ =
            (std::filesystem::temp_directory_path() / "xferlab-registry-test-XXXXXX").string();
        if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
        dir = templ;
    }
    ~RegTempDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    std::string registry() const { return (dir / "engines").string(); }
};

std::vector<int> reg_cpus(int first, int last) {
    std::vector<int> v(size_t(last - first + 1));
    std::iota(v.begin(), v.end(), first);
    return v;
}

EngineClaim reg_auto(int want, int cap, std::vector<int> cpus) {
    return EngineClaim{
        .device = 0, .helpers = want, .automatic = true, .cap = cap, .cpus = std::move(cpus)};
}

EngineClaim reg_fixed(int helpers, std::vector<int> cpus) {
    return EngineClaim{
        .device = 0, .helpers = helpers, .automatic = false, .cpus = std::move(cpus)};
}

// Sets an environment variable for the test's duration.
struct RegEnv {
    std::string name;
    std::string old;
    bool had = false;
    RegEnv(std::string n, const char* value) : name(std::move(n)) {
        if (const char* o = std::getenv(name.c_str())) old = o, had = true;
        if (value)
            ::setenv(name.c_str(), value, 1);
        else
            ::unsetenv(name.c_str());
    }
    ~RegEnv() {
        if (had)
            ::setenv(name.c_str(), old.c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

// Slots of the registry file whose first word (pid and device) is set: live or not yet cleaned.
int reg_used_slots(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int used = 0;
    for (size_t off = 64; off + 64 <= bytes.size(); off += 64) {
        uint64_t w0 = 0;
        std::memcpy(&w0, bytes.data() + off, sizeof w0);
        used += w0 != 0;
    }
    return used;
}

// Flushes what this process buffered for its outputs, before fork().
void reg_flush_output() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
}

// A child process holding one "auto" registration: it answers 'a' with active() (an int) on
// its reply pipe, and exits on 'q' or when the command pipe closes. Made with fork() and left
// with _exit(): it runs no Catch2 code and no destructors of the test's.
struct RegChild {
    pid_t pid = -1;
    int command = -1;  // parent writes
    int reply = -1;    // parent reads
};

RegChild reg_start_child(const std::string& path) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) throw std::runtime_error("pipe failed");
    reg_flush_output();  // a child must not print what the parent buffered
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::close(to_child[1]);
        ::close(from_child[0]);
        int code = 0;
        try {
            EngineRegistration reg(reg_auto(12, 12, reg_cpus(0, 15)), path, 20'000'000);
            int ready = reg.registered() ? 1 : 0;
            if (::write(from_child[1], &ready, sizeof ready) != sizeof ready) ::_exit(3);
            for (char c = 0; ::read(to_child[0], &c, 1) == 1 && c != 'q';) {
                int v = reg.active();
                if (::write(from_child[1], &v, sizeof v) != sizeof v) ::_exit(3);
            }
        } catch (...) {
            code = 2;
        }
        ::_exit(code);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    return {pid, to_child[1], from_child[0]};
}

// One int from `fd` within 10 s; -1 when none came.
int reg_read_int(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10'000) != 1) return -1;
    int v = -1;
    return ::read(fd, &v, sizeof v) == sizeof v ? v : -1;
}

int reg_ask_active(const RegChild& c) {
    const char a = 'a';
    if (::write(c.command, &a, 1) != 1) return -1;
    return reg_read_int(c.reply);
}

// Kills and reaps whatever children are left when a check fails half-way.
struct RegChildren {
    std::vector<RegChild> list;
    ~RegChildren() {
        for (RegChild& c : list) {
            if (c.pid > 0) {
                ::kill(c.pid, SIGKILL);
                ::waitpid(c.pid, nullptr, 0);
            }
            if (c.command >= 0) ::close(c.command);
            if (c.reply >= 0) ::close(c.reply);
        }
    }
};

// Asks every live child for active() until each says `expected`, for at most 10 s; returns
// the last answers.
std::vector<int> reg_wait_for_share(const std::vector<RegChild>& children, int expected) {
    std::vector<int> got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
        got.clear();
        for (const RegChild& c : children)
            if (c.pid > 0) got.push_back(reg_ask_active(c));
        if (std::all_of(got.begin(), got.end(), [&](int v) { return v == expected; })) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return got;
}

// "Device memory" is host memory; a DMA is performed at wait(), so a buffer reused too early
// shows as wrong bytes.
class RegFakeDevice final : public StagingDevice {
  public:
    RegFakeDevice(int threads, int buffers, uint64_t chunk)
        : buffers_(buffers), storage_(size_t(threads * buffers)), pending_(storage_.size()) {
        for (auto& s : storage_) s.resize(chunk);
    }
    void attach_helper(int) override {}
    std::byte* buffer(int helper, int slot) override { return storage_[at(helper, slot)].data(); }
    void start_to_device(int helper, int slot, void* dst, const std::byte* src, uint64_t len,
                         uint64_t) override {
        pending_[at(helper, slot)] = {static_cast<std::byte*>(dst), src, len};
    }
    void start_from_device(int helper, int slot, std::byte* dst, const void* src, uint64_t len,
                           uint64_t) override {
        pending_[at(helper, slot)] = {dst, static_cast<const std::byte*>(src), len};
    }
    void wait(int helper, int slot) override {
        Dma& d = pending_[at(helper, slot)];
        if (d.len) std::memcpy(d.to, d.from, d.len);
        d = {};
    }

  private:
    struct Dma {
        std::byte* to = nullptr;
        const std::byte* from = nullptr;
        uint64_t len = 0;
    };
    size_t at(int helper, int slot) const { return size_t(helper * buffers_ + slot); }
    int buffers_;
    std::vector<std::vector<std::byte>> storage_;
    std::vector<Dma> pending_;
};

// `workers` threads each copy `bytes` to the "device" and back through `engine`; checks every
// byte.
void reg_copy_both_ways(StagingEngine& engine, int workers, uint64_t bytes) {
    const size_t n = static_cast<size_t>(workers);
    std::vector<std::vector<std::byte>> src(n), back(n), dev(n);
    for (int w = 0; w < workers; ++w) {
        src[size_t(w)].resize(bytes);
        for (uint64_t i = 0; i < bytes; ++i)
            src[size_t(w)][i] = std::byte(uint8_t(i * 7 + uint64_t(w) * 29 + 3));
        back[size_t(w)].assign(bytes, std::byte{0});
        dev[size_t(w)].assign(bytes, std::byte{0});
    }
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            const size_t i = size_t(w);
            engine.to_device(dev[i].data(), src[i].data(), bytes);
            engine.from_device(back[i].data(), dev[i].data(), bytes);
        });
    for (auto& t : threads) t.join();
    for (int w = 0; w < workers; ++w) {
        CHECK(dev[size_t(w)] == src[size_t(w)]);
        CHECK(back[size_t(w)] == src[size_t(w)]);
    }
}

}  // namespace

TEST_CASE("auto helpers: twice the link's share of one thread's probe, within the cap",
          "[staging][registry]") {
    // The H200 hosts of pass 11: a PCIe 5 x16 link (63 GB/s) and probes of 6.8-11.3 GB/s all
    // get the cap of 12 (1.5x gave 9 at 11.1 GB/s, and copies from the device ran slower).
    for (double probe : {6.8, 9.1, 10.6, 11.0, 11.1, 11.3})
        CHECK(auto_helper_count(63.0, probe, 12) == 12);
    // A link half as fast needs half the helpers: ceil(2 x 31.5 / 11) = 6.
    CHECK(auto_helper_count(31.5, 11.0, 12) == 6);
    CHECK(auto_helper_count(63.0, 21.0, 12) == 6);
    // Never more than the cap (the CPUs near the device), never fewer than one.
    CHECK(auto_helper_count(63.0, 1.0, 4) == 4);
    CHECK(auto_helper_count(1.0, 100.0, 12) == 1);
    CHECK(auto_helper_count(63.0, 11.0, 0) == 1);
    // No probe: the cap.
    CHECK(auto_helper_count(63.0, 0.0, 12) == 12);
}

TEST_CASE("staging registry: the share of the CPUs", "[staging][registry]") {
    // clamp(floor((cap - fixed_others) / auto_engines), 1, want)
    CHECK(staging_share(12, 12, 0, 1) == 12);
    CHECK(staging_share(12, 12, 0, 4) == 3);  // 4 worker processes on one device
    CHECK(staging_share(12, 12, 0, 5) == 2);
    CHECK(staging_share(12, 12, 0, 13) == 1);  // never below one
    CHECK(staging_share(12, 12, 4, 2) == 4);   // fixed helpers leave less room
    CHECK(staging_share(12, 12, 12, 3) == 1);
    CHECK(staging_share(12, 12, 40, 1) == 1);
    CHECK(staging_share(4, 12, 0, 1) == 4);  // never above what the engine wants
    CHECK(staging_share(6, 16, 0, 2) == 6);
    CHECK(staging_share(0, 12, 0, 1) == 1);    // nonsense in, at least one out
    CHECK(staging_share(12, 12, 0, 0) == 12);  // no engine counted: this one
    CHECK(staging_share(12, 12, -3, 4) == 3);

    // The cap the sharing engines split: 12 per device, at most the CPUs they run on.
    CHECK(staging_share_cap(12, 16, 1) == 12);  // one device: as an engine alone
    CHECK(staging_share_cap(12, 48, 4) == 48);  // 4 devices of one socket
    CHECK(staging_share_cap(12, 16, 4) == 16);  // ... on a small socket
    CHECK(staging_share_cap(12, 100, 2) == 24);
    CHECK(staging_share_cap(12, 8, 1) == 12);  // a budget below the cap counts as the cap
    CHECK(staging_share_cap(0, 0, 0) == 1);

    CHECK(engine_device_key("0000:3b:00.0") == 0x3b00u);
    CHECK(engine_device_key("0001:C1:1f.7") == 0x1c1ffu);
    CHECK(engine_device_key("0000:3b:00.0x") == 0u);
    CHECK(engine_device_key("GPU-0") == 0u);
    CHECK(engine_device_key("") == 0u);

    CHECK(format_cpu_ranges({}).empty());
    CHECK(format_cpu_ranges(reg_cpus(0, 15)) == "0-15");
    CHECK(format_cpu_ranges({11, 3, 1, 2, 8, 10, 3}) == "1-3,8,10-11");

    {
        RegEnv env("XFERLAB_ENGINE_REGISTRY", "/somewhere/engines");
        CHECK(default_engine_registry_path() == "/somewhere/engines");
    }
    {
        RegEnv env("XFERLAB_ENGINE_REGISTRY", "off");
        CHECK(default_engine_registry_path().empty());
        EngineRegistration off(reg_auto(12, 12, {}));
        CHECK_FALSE(off.registered());
        CHECK(off.active() == 12);
        CHECK(contains(off.why(), "XFERLAB_ENGINE_REGISTRY=off"));
        CHECK(contains(off.describe(), "auto: 12 helpers, not shared"));
    }
    {
        RegEnv env("XFERLAB_ENGINE_REGISTRY", nullptr);
        const std::string path = default_engine_registry_path();
        CHECK(contains(path, "/xferlab-engines-" + std::to_string(::geteuid())));
    }
}

TEST_CASE("staging registry: engines of one process share the CPUs they have in common",
          "[staging][registry]") {
    RegTempDir tmp;
    const std::string path = tmp.registry();
    auto a = std::make_unique<EngineRegistration>(reg_auto(12, 12, reg_cpus(0, 15)), path);
    REQUIRE(a->registered());
    CHECK(a->why().empty());
    CHECK(a->active() == 12);
    CHECK(a->describe() == "auto: 12 of 12 helpers, no other engine shares CPUs 0-15");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);

    auto b = std::make_unique<EngineRegistration>(reg_auto(12, 12, reg_cpus(0, 15)), path);
    CHECK(a->active() == 6);  // the generation changed: rescanned at once
    CHECK(b->active() == 6);
    CHECK(registry_engines(path).size() == 2);

    // An explicit thread count is fixed: the auto engines share what it leaves.
    auto fixed = std::make_unique<EngineRegistration>(reg_fixed(4, reg_cpus(0, 3)), path);
    CHECK(fixed->active() == 4);
    CHECK(a->active() == 4);  // (12 - 4) / 2

    // Disjoint CPUs (another device's socket) do not count; no CPU set overlaps every one.
    auto other_socket =
        std::make_unique<EngineRegistration>(reg_auto(12, 12, reg_cpus(16, 31)), path);
    CHECK(other_socket->active() == 12);
    CHECK(a->active() == 4);
    auto anywhere = std::make_unique<EngineRegistration>(reg_auto(12, 12, {}), path);
    CHECK(a->active() == 2);             // (12 - 4) / 3
    CHECK(other_socket->active() == 6);  // 12 / 2
    CHECK(anywhere->active() == 2);      // overlaps all: (12 - 4) / 4
    CHECK(contains(anywhere->describe(), "5 engines share the machine's CPUs"));

    const auto engines = registry_engines(path);
    REQUIRE(engines.size() == 5);
    int autos = 0, any = 0;
    for (const RegisteredEngine& e : engines) {
        CHECK(e.pid == ::getpid());
        CHECK(e.created_ns > 0);
        autos += e.automatic;
        any += e.any_cpu;
        if (!e.automatic) {
            CHECK(e.helpers == 4);
            CHECK(e.first_cpu == 0);
            CHECK(e.last_cpu == 3);
        }
    }
    CHECK(autos == 4);
    CHECK(any == 1);

    b.reset();
    anywhere.reset();
    CHECK(a->active() == 8);  // (12 - 4) / 1
    CHECK(a->describe() ==
          "auto: 2-12 of 12 helpers, 2 engines share CPUs 0-15 (1 of them with a fixed "
          "staging.threads: 4 helpers)");
    a->describe(true);
    CHECK(a->active() == 8);
    CHECK(a->summary().lowest == 8);
    CHECK(a->summary().highest == 8);
    CHECK(a->summary().engines == 2);
    fixed.reset();
    other_socket.reset();
    CHECK(a->active() == 12);
    a.reset();
    CHECK(registry_engines(path).empty());
    CHECK(reg_used_slots(path) == 0);
}

TEST_CASE("staging registry: engines of several devices split one cap per device",
          "[staging][registry]") {
    RegTempDir tmp;
    const std::string path = tmp.registry();
    auto on = [&](uint32_t key) {
        EngineClaim c = reg_auto(12, 12, reg_cpus(0, 15));
        c.cpu_budget = 16;
        c.device_key = key;
        return std::make_unique<EngineRegistration>(c, path);
    };
    auto a = on(0x3b00);
    auto b = on(0x3c00);      // another device, same socket
    CHECK(a->active() == 8);  // min(16, 2 x 12) / 2
    CHECK(b->active() == 8);
    CHECK(a->summary().cap == 16);
    CHECK(a->summary().devices == 2);
    CHECK(contains(a->describe(), "2 engines of 2 devices share CPUs 0-15"));
    auto c = on(0x3b00);      // a second engine on the first device
    CHECK(a->active() == 5);  // 16 / 3
    CHECK(c->active() == 5);
    const auto engines = registry_engines(path);
    REQUIRE(engines.size() == 3);
    int first_device = 0;
    for (const RegisteredEngine& e : engines) first_device += e.device_key == 0x3b00;
    CHECK(first_device == 2);
    b.reset();
    CHECK(a->active() == 6);  // one device: 12 / 2
}

TEST_CASE("staging registry: a child made by fork() leaves its parent's slot alone",
          "[staging][registry]") {
    RegTempDir tmp;
    const std::string path = tmp.registry();
    auto parent = std::make_unique<EngineRegistration>(reg_auto(12, 12, {}), path);
    REQUIRE(parent->registered());
    reg_flush_output();  // a child must not print what the parent buffered
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        parent.reset();  // the copy of the parent's registration: must not free its slot
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    const auto engines = registry_engines(path);
    REQUIRE(engines.size() == 1);
    CHECK(engines[0].pid == ::getpid());
    auto other = std::make_unique<EngineRegistration>(reg_auto(12, 12, {}), path);
    CHECK(other->active() == 6);  // the parent's slot still counts
    CHECK(parent->active() == 6);
    other.reset();
    parent.reset();
    CHECK(reg_used_slots(path) == 0);
}

TEST_CASE("staging registry: an unusable or full registry leaves the engine on its own",
          "[staging][registry]") {
    RegTempDir tmp;
    {
        EngineRegistration nowhere(reg_auto(12, 12, {}),
                                   (tmp.dir / "no/such/dir/engines").string());
        CHECK_FALSE(nowhere.registered());
        CHECK(nowhere.active() == 12);
        CHECK(contains(nowhere.why(), "cannot open the engine registry"));
    }
    {
        const std::string path = (tmp.dir / "not-a-registry").string();
        std::ofstream(path) << std::string(20000, 'x');
        EngineRegistration foreign(reg_auto(12, 12, {}), path);
        CHECK_FALSE(foreign.registered());
        CHECK(foreign.active() == 12);
        CHECK(contains(foreign.why(), "is not an xferlab engine registry"));
    }
    {
        const std::string path = tmp.registry();
        std::vector<std::unique_ptr<EngineRegistration>> all;
        for (int i = 0; i < kEngineRegistrySlots; ++i)
            all.push_back(std::make_unique<EngineRegistration>(reg_fixed(1, {i}), path));
        for (const auto& r : all) REQUIRE(r->registered());
        EngineRegistration late(reg_auto(12, 12, {}), path);
        CHECK_FALSE(late.registered());
        CHECK(late.active() == 12);
        CHECK(contains(late.why(), "every one of the 256 slots"));
        all.pop_back();  // a slot frees up: the next engine gets it
        EngineRegistration next(reg_auto(12, 12, {}), path);
        CHECK(next.registered());
        CHECK(next.active() == 1);  // 255 fixed helpers on the machine's CPUs
    }
}

TEST_CASE("staging registry: a foreign file at its path is refused and left as it was",
          "[staging][registry]") {
    // Issue 54, item 14: a 100-byte file at the registry's path was extended to the registry's
    // size (and one starting with zero bytes given its header) before it was refused.
    RegTempDir tmp;
    for (const std::string& bytes : {std::string(100, 'x'), std::string(100, '\0'),
                                     std::string(kEngineRegistrySlots * 64 + 64, 'y')}) {
        const std::string path = (tmp.dir / "foreign").string();
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        {
            EngineRegistration foreign(reg_auto(12, 12, {}), path);
            CHECK_FALSE(foreign.registered());
            CHECK(foreign.active() == 12);
            CHECK(contains(foreign.why(), "is not an xferlab engine registry"));
        }
        std::ifstream in(path, std::ios::binary);
        const std::string after((std::istreambuf_iterator<char>(in)), {});
        CHECK(after.size() == bytes.size());
        CHECK(after == bytes);
    }
    // An empty file is one being created: it becomes the registry.
    const std::string empty = (tmp.dir / "empty").string();
    std::ofstream(empty).close();
    EngineRegistration fresh(reg_auto(12, 12, {}), empty);
    CHECK(fresh.registered());
}

TEST_CASE("staging registry: four processes share, and one killed leaves no stale share",
          "[staging][registry]") {
    RegTempDir tmp;
    const std::string path = tmp.registry();
    RegChildren children;
    for (int i = 0; i < 4; ++i) children.list.push_back(reg_start_child(path));
    for (const RegChild& c : children.list) REQUIRE(reg_read_int(c.reply) == 1);  // registered

    // Each registered at its own moment: the later ones bumped the generation, so every one
    // rescans at its next request and settles on 12 / 4.
    CHECK(reg_wait_for_share(children.list, 3) == std::vector<int>{3, 3, 3, 3});
    CHECK(registry_engines(path).size() == 4);

    // SIGKILL: no destructor runs, the kernel drops the slot's lock. The others find the slot
    // unlocked at their periodic recheck (20 ms here), zero it and take its share back.
    RegChild& victim = children.list[0];
    const pid_t victim_pid = victim.pid;
    REQUIRE(::kill(victim.pid, SIGKILL) == 0);
    int status = 0;
    REQUIRE(::waitpid(victim.pid, &status, 0) == victim.pid);
    CHECK(WIFSIGNALED(status));
    victim.pid = -1;
    CHECK(reg_wait_for_share(children.list, 4) == std::vector<int>{4, 4, 4});
    CHECK(reg_used_slots(path) == 3);  // the dead slot was zeroed by a scan
    const auto live = registry_engines(path);
    CHECK(live.size() == 3);
    for (const RegisteredEngine& e : live) CHECK(e.pid != victim_pid);

    // A clean exit releases the slot as well.
    for (RegChild& c : children.list) {
        if (c.pid < 0) continue;
        const char q = 'q';
        CHECK(::write(c.command, &q, 1) == 1);
        REQUIRE(::waitpid(c.pid, &status, 0) == c.pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        c.pid = -1;
    }
    CHECK(registry_engines(path).empty());
    CHECK(reg_used_slots(path) == 0);
}

TEST_CASE("staging registry: an engine lets only its share of helpers take work",
          "[staging][registry]") {
    RegTempDir tmp;
    const std::string path = tmp.registry();
    constexpr int kThreads = 4;
    constexpr uint64_t kChunk = 4096;
    auto mine = std::make_shared<EngineRegistration>(reg_auto(kThreads, kThreads, {}), path);
    auto other = std::make_unique<EngineRegistration>(reg_auto(kThreads, kThreads, {}), path);
    StagingConfig config;
    config.threads = kThreads;
    config.buffers = 2;
    config.chunk = kChunk;
    config.dma_chunk = 0;  // each helper its own buffers (RegFakeDevice's layout)
    config.active_helpers = [mine] { return mine->active(); };
    auto probe = std::make_shared<StatsProbe>(kThreads);
    StagingEngine engine(
        config,
        measured_device(std::make_unique<RegFakeDevice>(kThreads, 2, kChunk), probe, config));
    engine.start();
    CHECK(engine.active_helpers() == kThreads);  // before the first request

    reg_copy_both_ways(engine, 3, 40 * kChunk + 123);
    CHECK(engine.active_helpers() == 2);
    const uint64_t chunks = 2 * 3 * 41;
    CHECK(probe->helper_work(0).chunks + probe->helper_work(1).chunks == chunks);
    CHECK(probe->helper_work(2).chunks == 0);
    CHECK(probe->helper_work(3).chunks == 0);

    other.reset();  // the generation changes: the next request lets all four in
    reg_copy_both_ways(engine, 3, 40 * kChunk + 123);
    CHECK(engine.active_helpers() == kThreads);
    CHECK(engine.totals().chunks == 2 * chunks);
    CHECK(mine->describe() == "auto: 2-4 of 4 helpers, no other engine shares the machine's CPUs");
    engine.stop();

    // The answer is clamped to 1..threads.
    for (int asked : {0, -5, 99}) {
        StagingConfig c = config;
        c.active_helpers = [asked] { return asked; };
        auto clamped_probe = std::make_shared<StatsProbe>(kThreads);
        StagingEngine clamped(
            c, measured_device(std::make_unique<RegFakeDevice>(kThreads, 2, kChunk), clamped_probe,
                               c));
        clamped.start();
        reg_copy_both_ways(clamped, 2, 9 * kChunk + 1);
        CHECK(clamped.active_helpers() == (asked > 0 ? kThreads : 1));
        clamped.stop();
        if (asked <= 0) CHECK(clamped_probe->helper_work(0).chunks == 2 * 2 * 10);
    }
}
