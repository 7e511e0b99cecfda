#include "embed/payload_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include "util/no_follow.hpp"

namespace xfer {
namespace {

std::mutex g_output_mutex;
std::filesystem::path g_log_path;
int g_log_fd = -1;
struct stat g_log_file {};  // what g_log_fd was opened on

// Whether g_log_fd is still the log: a payload may close every descriptor
// (os.closerange(3, 1024)), after which the number may name another file, results.sqlite
// among them, which the payload's output must never be written into.
bool log_fd_still_ours() {
    struct stat now {};
    return g_log_fd >= 0 && ::fstat(g_log_fd, &now) == 0 && now.st_dev == g_log_file.st_dev &&
           now.st_ino == g_log_file.st_ino;
}

void write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // output is best effort: a full disk must not fail the run
        text.remove_prefix(size_t(n));
    }
}

}  // namespace

void set_payload_output_log(const std::filesystem::path& log) {
    std::lock_guard lock(g_output_mutex);
    if (log_fd_still_ours()) ::close(g_log_fd);
    g_log_fd = -1;
    g_log_path = log;
}

std::filesystem::path payload_output_log() {
    std::lock_guard lock(g_output_mutex);
    return g_log_path;
}

std::string payload_output_prefix(const std::string& payload, int run, int worker,
                                  const std::string& thread) {
    if (payload.empty()) return "[payload " + thread + "] ";
    return "[payload " + payload + " run " + std::to_string(run) + " " +
           (worker >= 0 ? "w" + std::to_string(worker) : thread) + "] ";
}

void write_payload_output(const std::string& prefix, std::string_view lines) {
    std::string out;
    size_t start = 0;
    while (start < lines.size()) {
        size_t end = lines.find('\n', start);
        if (end == std::string_view::npos) end = lines.size();
        out += prefix;
        out.append(lines.substr(start, end - start));
        out += '\n';
        start = end + 1;
    }
    std::lock_guard lock(g_output_mutex);  // whole lines: threads and processes never split one
    write_all(STDERR_FILENO, out);
    if (g_log_fd >= 0 && !log_fd_still_ours()) g_log_fd = -1;  // closed by a payload: not ours
    if (g_log_fd < 0 && !g_log_path.empty()) {
        // Not O_EXCL: worker processes append to the file their parent (or another) created.
        const OpenedNoFollow opened = open_no_follow(g_log_path, O_WRONLY | O_CREAT | O_APPEND);
        g_log_fd = opened.fd;
        if (g_log_fd >= 0) ::fstat(g_log_fd, &g_log_file);
        if (g_log_fd < 0) {  // tried once; stderr still has the output
            write_all(STDERR_FILENO, "xferlab: payload output is not copied to a file: " +
                                         open_failure(g_log_path, opened) + "\n");
            g_log_path.clear();
        }
    }
    if (g_log_fd >= 0) write_all(g_log_fd, out);
}

}  // namespace xfer
