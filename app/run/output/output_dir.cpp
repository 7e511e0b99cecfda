#include "run/output/output_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "results/folder_files.hpp"
#include "report/render/formats.hpp"
#include "settings/vocabulary.hpp"
#include "run/output/output_lock.hpp"
#include "util/fd_write.hpp"
#include "util/no_follow.hpp"

namespace xfer {
namespace fs = std::filesystem;

namespace {

constexpr const char* kProbeFile = ".xferlab-write-test";

// Every name an xferlab run writes into its folder, in the order they are listed to the user.
std::vector<std::string> output_file_names() {
    std::vector<std::string> names;
    for (const Format& f : formats())
        if (!f.file.empty()) names.push_back(f.file);
    // results.sqlite and, after a kill, SQLite's write-ahead log and its index.
    for (const char* suffix : {"", "-wal", "-shm"})
        names.push_back(std::string(kRecordStoreFile) + suffix);
    names.push_back(kJournalFile);
    names.push_back(kPayloadLogFile);
    return names;
}

// ".results.json.tmp.4711": results/atomic_file.cpp's temporary file, left behind by a kill.
bool is_leftover_of(const std::string& entry, const std::string& name) {
    const std::string prefix = "." + name + ".tmp.";
    if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) return false;
    return std::all_of(entry.begin() + long(prefix.size()), entry.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Every name xferlab may create in an output folder: its files, the lock, the probe, and the
// temporary names of its atomic rewrites.
bool written_by_xferlab(const std::string& entry) {
    const auto names = output_file_names();
    return entry == kProbeFile || entry == kOutputLockFile ||
           std::find(names.begin(), names.end(), entry) != names.end() ||
           std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return is_leftover_of(entry, n); });
}

}  // namespace

std::string output_folder_problem(const fs::path& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return "";  // created by xferlab
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const fs::path target = fs::read_symlink(dir, ec);
        return "output folder " + dir.string() + " is a symbolic link (to " + target.string() +
               "): xferlab writes into the folder it is given, never through a link to "
               "another; give that folder itself";
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!written_by_xferlab(entry.path().filename().string())) continue;
        // A regular file is earlier output (earlier_output names it); anything else under one
        // of these names was put there for xferlab to write through.
        if (::lstat(entry.path().c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            return "output folder " + dir.string() + ": " + not_a_plain_file(entry.path());
    }
    return "";
}

std::string folder_safe_name(const std::string& name) {
    std::string safe = name.empty() ? "scenario" : name;
    for (char& c : safe)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
            c = '_';
    // "." and ".." are names of folders that exist already.
    if (safe.find_first_not_of('.') == std::string::npos) safe.replace(0, 1, "_");
    return safe;
}

fs::path absolute_folder(const fs::path& dir) {
    fs::path p = fs::absolute(dir).lexically_normal();
    if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();  // "out/" -> "out"
    return p;
}

fs::path expand_output_dir(const std::string& pattern, const std::string& scenario) {
    char stamp[32];
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    std::string out = pattern;
    auto replace = [&](const std::string& from, const std::string& to) {
        for (size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size()))
            out.replace(p, from.size(), to);
    };
    replace("{timestamp}", stamp);
    replace("{scenario}", folder_safe_name(scenario));
    return out;
}

std::vector<std::string> earlier_output(const fs::path& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    const auto names = output_file_names();
    for (const auto& name : names)
        if (fs::is_regular_file(dir / name, ec)) found.push_back(name);
    std::vector<std::string> leftovers;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string entry_name = entry.path().filename().string();
        const bool leftover = entry_name == kProbeFile ||
                              std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                                  return is_leftover_of(entry_name, n);
                              });
        if (leftover && entry.is_regular_file(ec)) leftovers.push_back(entry_name);
    }
    std::sort(leftovers.begin(), leftovers.end());
    found.insert(found.end(), leftovers.begin(), leftovers.end());
    return found;
}

std::vector<std::string> remove_earlier_output(const fs::path& dir) {
    std::vector<std::string> removed = earlier_output(dir);
    for (const auto& name : removed)
        if (::unlink((dir / name).c_str()) != 0 && errno != ENOENT)
            throw std::runtime_error("cannot remove " + (dir / name).string() + ": " +
                                     std::strerror(errno));
    return removed;
}

fs::path unused_output_dir(const fs::path& dir) {
    fs::path candidate = dir;
    for (int n = 2; !earlier_output(candidate).empty(); ++n)
        candidate = fs::path(dir.string() + "-" + std::to_string(n));
    return candidate;
}

void prepare_output_dir(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error("cannot create output folder " + dir.string() + ": " +
                                 ec.message());
    fs::path probe = dir / kProbeFile;
    const OpenedNoFollow opened = open_no_follow(probe, O_WRONLY | O_CREAT | O_EXCL);
    if (!opened.planted.empty()) throw std::runtime_error(opened.planted);
    if (opened.fd < 0)
        throw std::runtime_error("output folder " + dir.string() +
                                 " is not writable: " + std::strerror(opened.error));
    const int fd = opened.fd;
    // A full disk shows at write or fsync time, not at open. A write cut short (the file size
    // limit, the last free blocks) is continued: the next write says why.
    const char block[4096] = {};
    const int err = write_all_durably(fd, std::string_view(block, sizeof block));
    const bool ok = err == 0;
    ::close(fd);
    ::unlink(probe.c_str());
    if (!ok)
        throw std::runtime_error("output folder " + dir.string() +
                                 " cannot be written: " + std::strerror(err));
}

}  // namespace xfer
