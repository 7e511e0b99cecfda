#include "results/journal_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "results/folder_files.hpp"
#include "results/serialize.hpp"
#include "util/fd_write.hpp"
#include "util/no_follow.hpp"

namespace xfer {

JournalWriter::JournalWriter(std::filesystem::path dir) : path_(std::move(dir) / kJournalFile) {}

std::string JournalWriter::name() const { return kJournalFile; }

void JournalWriter::add_run(const Results& plan, const RunResult& run) {
    // compact_json: a string that is not UTF-8 (a --set value, a payload's text) is written
    // with U+FFFD in its place, never thrown over.
    const std::string line = compact_json(journal_line(plan, run)) + "\n";
    const OpenedNoFollow opened =
        open_no_follow(path_, O_WRONLY | O_APPEND | (created_ ? 0 : O_CREAT | O_EXCL));
    if (opened.fd < 0) throw std::runtime_error(open_failure(path_, opened));
    created_ = true;
    const int fd = opened.fd;
    const off_t before = ::lseek(fd, 0, SEEK_END);
    int err = write_all_durably(fd, line);
    if (err != 0 && before >= 0) (void)!::ftruncate(fd, before);
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err != 0)
        throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(err) +
                                 (before >= 0 ? " (the partial line was removed)" : ""));
}

}  // namespace xfer
