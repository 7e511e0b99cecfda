#pragma once
// Opening a file in a folder that others may write into (a shared results folder) so that
// nothing planted there steers the write elsewhere: never through a symbolic link at the last
// component (O_NOFOLLOW), only a regular file with no other name (a planted hard link leads
// elsewhere as surely), and never blocking on a FIFO planted under the name (O_NONBLOCK).
// Where xferlab creates the file, the caller adds O_CREAT | O_EXCL: then nothing planted
// before the open is written through either.
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace xfer {

struct OpenedNoFollow {
    int fd = -1;          // -1: not opened
    int error = 0;        // errno of the failure
    std::string planted;  // set when what is there is no plain file ("PATH is a symbolic link
                          // (to TARGET): ..."); the error is then about it, not the system's
};

// `path` opened with `flags` | O_NOFOLLOW | O_CLOEXEC (`mode` where it creates).
OpenedNoFollow open_no_follow(const std::filesystem::path& path, int flags, mode_t mode = 0644);

// The failure of `opened` as a sentence: `planted`, else "cannot open PATH: <reason>".
std::string open_failure(const std::filesystem::path& path, const OpenedNoFollow& opened);

// What `path` is when it is not a plain file xferlab may write: a symbolic link (and to what),
// another kind of file, or a file with another name; "" when it is one, or when nothing is
// there. Reads the entry itself (lstat), never what a link points to.
std::string not_a_plain_file(const std::filesystem::path& path);

}  // namespace xfer
