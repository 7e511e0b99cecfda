#include "system/memory_limits.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "system/meminfo.hpp"
#include "util/format.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

// The first word of a one-value file (memory.max, memory.current, ...).
std::string first_word(const fs::path& file) {
    std::ifstream in(file);
    std::string word;
    in >> word;
    return word;
}

std::optional<uint64_t> number_in(const fs::path& file) {
    const std::string word = first_word(file);
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    try {
        return std::stoull(word);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// MemAvailable counts reclaimable page cache, which MemFree does not: it is the kernel's own
// estimate of what can be allocated without swapping.
MemoryLimit available_memory(const fs::path& meminfo) {
    const MemInfo info = read_meminfo(meminfo);
    return MemoryLimit{MemoryLimit::Kind::available, info.total, info.available, ""};
}

std::optional<MemoryLimit> address_space(const MemorySources& s) {
    uint64_t limit = kNoAddressSpaceLimit;
    if (s.address_space_limit) {
        limit = *s.address_space_limit;
    } else {
        struct rlimit rl {};
        if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) limit = rl.rlim_cur;
    }
    if (limit == kNoAddressSpaceLimit) return std::nullopt;
    // The limit counts every mapping of the process (libraries, the interpreter, stacks), so
    // what is left is the limit less what is mapped already.
    const uint64_t mapped = keyed_number(s.self_status, "VmSize:").value_or(0) * 1024;
    return MemoryLimit{MemoryLimit::Kind::address_space, limit, limit > mapped ? limit - mapped : 0,
                       ""};
}

struct CgroupFiles {
    const char* limit;        // "max" or a number; cgroup v1 writes a huge number for none
    const char* usage;        // charged bytes, page cache included
    const char* reclaimable;  // key in memory.stat: page cache the kernel reclaims first
};
constexpr CgroupFiles kCgroupV2{"memory.max", "memory.current", "inactive_file"};
constexpr CgroupFiles kCgroupV1{"memory.limit_in_bytes", "memory.usage_in_bytes",
                                "total_inactive_file"};
// cgroup v1 reports "no limit" as LONG_MAX rounded down to a page; anything this large is none.
constexpr uint64_t kCgroupV1Unlimited = uint64_t(1) << 62;

// Lowers `best` with the limit of `dir` (one cgroup), if it has one.
void consider_cgroup(const fs::path& dir, const CgroupFiles& files,
                     std::optional<MemoryLimit>& best) {
    const auto limit = number_in(dir / files.limit);  // "max" (v2) reads as none
    if (!limit || *limit >= kCgroupV1Unlimited) return;
    uint64_t used = number_in(dir / files.usage).value_or(0);
    // Like MemAvailable, inactive page cache is left out: the kernel reclaims it before it
    // refuses the cgroup memory (a build's page cache would otherwise look like a full cgroup).
    const uint64_t cache = keyed_number(dir / "memory.stat", files.reclaimable).value_or(0);
    used = used > cache ? used - cache : 0;
    const uint64_t left = *limit > used ? *limit - used : 0;
    if (!best || left < best->left)
        best = MemoryLimit{MemoryLimit::Kind::cgroup, *limit, left, (dir / files.limit).string()};
}

// The cgroup `path` ("/a/b") under `root`, then each parent up to `root`: a parent's limit
// binds its children too. A level missing under `root` (a container that mounts only its own
// cgroup, at the root) is skipped.
void walk_cgroup(const fs::path& root, std::string path, const CgroupFiles& files,
                 std::optional<MemoryLimit>& best) {
    while (true) {
        const fs::path dir = root / fs::path(path).relative_path();
        std::error_code ec;
        if (fs::is_directory(dir, ec)) consider_cgroup(dir, files, best);
        if (path.empty() || path == "/") return;
        const auto slash = path.find_last_of('/');
        path = slash == std::string::npos ? "" : path.substr(0, slash);
    }
}

// /proc/self/cgroup lines are "id:controllers:path": "0::/path" for cgroup v2, and e.g.
// "4:memory:/path" for the v1 memory controller (hybrid hosts have both).
std::optional<MemoryLimit> cgroup_limit(const MemorySources& s) {
    std::optional<MemoryLimit> best;
    std::ifstream in(s.self_cgroup);
    std::string line;
    std::error_code ec;
    while (std::getline(in, line)) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
        const std::string path = line.substr(b + 1);
        if (id == "0" && controllers.empty()) {
            // Hybrid hosts mount the v2 hierarchy at <root>/unified.
            fs::path root = s.cgroup_root;
            if (!fs::exists(root / "cgroup.controllers", ec) &&
                fs::exists(root / "unified" / "cgroup.controllers", ec))
                root /= "unified";
            walk_cgroup(root, path, kCgroupV2, best);
        } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            walk_cgroup(s.cgroup_root / "memory", path, kCgroupV1, best);
        }
    }
    return best;
}

}  // namespace

std::string describe(const MemoryLimit& m) {
    switch (m.kind) {
        case MemoryLimit::Kind::available:
            return fmt::format("only {} is free (MemAvailable)", format_size(m.left));
        case MemoryLimit::Kind::address_space:
            return fmt::format("the address-space limit (ulimit -v) of {} leaves {}",
                               format_size(m.limit), format_size(m.left));
        case MemoryLimit::Kind::cgroup:
            return fmt::format("the cgroup memory limit of {} ({}) leaves {}", format_size(m.limit),
                               m.where, format_size(m.left));
    }
    return {};
}

std::string limit_name(const MemoryLimit& m) {
    switch (m.kind) {
        case MemoryLimit::Kind::available:
            return "MemAvailable";
        case MemoryLimit::Kind::address_space:
            return "ulimit -v";
        case MemoryLimit::Kind::cgroup:
            return "the cgroup memory limit";
    }
    return {};
}

const MemoryLimit& MemoryBudget::binding() const {
    const MemoryLimit* least = &limits.front();
    for (const MemoryLimit& m : limits)
        if (m.left < least->left) least = &m;
    return *least;
}

MemoryBudget read_memory_budget(const MemorySources& sources) {
    MemoryBudget budget;
    budget.limits.push_back(available_memory(sources.meminfo));
    if (auto as = address_space(sources)) budget.limits.push_back(*as);
    if (auto cg = cgroup_limit(sources)) budget.limits.push_back(*cg);
    return budget;
}

}  // namespace xfer
