#include "run/output_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "results/serialize.hpp"

namespace xfer {
namespace fs = std::filesystem;

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
    std::string safe = scenario.empty() ? "scenario" : scenario;
    for (char& c : safe)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    replace("{timestamp}", stamp);
    replace("{scenario}", safe);
    return out;
}

void prepare_output_dir(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
    fs::path probe = dir / ".xferlab-write-test";
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        throw std::runtime_error("output folder " + dir.string() + " is not writable: " +
                                 std::strerror(errno));
    // A full disk shows at write or fsync time, not at open. A write cut short (the file size
    // limit, the last free blocks) is continued: the next write says why.
    char block[4096] = {};
    size_t done = 0;
    int err = 0;
    while (done < sizeof block && err == 0) {
        ssize_t n = ::write(fd, block + done, sizeof block - done);
        if (n > 0) {
            done += size_t(n);
        } else if (n == 0) {
            err = ENOSPC;
        } else if (errno != EINTR) {
            err = errno;
        }
    }
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    const bool ok = err == 0;
    ::close(fd);
    ::unlink(probe.c_str());
    if (!ok)
        throw std::runtime_error("output folder " + dir.string() + " cannot be written: " +
                                 std::strerror(err));
}

void append_journal(const fs::path& dir, const Results& plan, const RunResult& run) {
    std::string line = journal_line(plan, run).dump() + "\n";
    fs::path path = dir / "journal.jsonl";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(err));
        }
        p += n;
        left -= size_t(n);
    }
    ::fsync(fd);
    ::close(fd);
}

}  // namespace xfer
