#pragma once
// The file behind a copy's source ([staging] mapped_files = "read"). A file mapped with
// numpy.memmap (or mmap.mmap, as safetensors-style loaders do) and copied right after it is
// mapped has every page faulted in by the copy: a fault per page or fault-around block, each
// mapping page-cache pages into the process. Reading the file instead (pread into the
// page-locked buffers) takes the same bytes from the same page cache and maps nothing.
//
// Only where that gives the mapping's bytes: a shared mapping (MAP_SHARED: a private one may
// hold pages the process changed) of a regular file, the source wholly inside one mapping, the
// file at its path still the one mapped (device and inode compared). Linux 6.11's PROCMAP_QUERY
// finds the mapping in one ioctl; where the kernel has none, no file is found and copies read
// the mapping as before.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace xfer {

// A file held open for the copies that read it.
class OpenFile {
  public:
    OpenFile(int fd, uint64_t device, uint64_t inode) : fd_(fd), device_(device), inode_(inode) {}
    ~OpenFile();
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    int fd() const { return fd_; }
    bool is(uint64_t device, uint64_t inode) const { return device == device_ && inode == inode_; }

  private:
    int fd_;
    uint64_t device_;
    uint64_t inode_;
};

// Where a source's bytes are in a file: `offset` is the file offset of its first byte.
struct FileRange {
    std::shared_ptr<const OpenFile> file;
    uint64_t offset = 0;
};

// Finds the file behind a source. One per engine; thread-safe. Keeps the last file it opened,
// so that a loader's copies of many tensors from one file open it once.
class MappedFiles {
  public:
    MappedFiles() = default;
    ~MappedFiles();
    MappedFiles(const MappedFiles&) = delete;
    MappedFiles& operator=(const MappedFiles&) = delete;

    // The file behind [p, p + len), or nullopt (see above: anonymous memory, a private mapping,
    // several mappings, no PROCMAP_QUERY, a file that cannot be opened or is no longer the one
    // mapped). Costs an ioctl; an open() and fstat() when the file is not the last one found.
    std::optional<FileRange> find(const void* p, uint64_t len);

  private:
    std::mutex mutex_;
    int maps_fd_ = -1;       // /proc/self/maps, opened on first use
    bool no_query_ = false;  // the kernel has no PROCMAP_QUERY: asked no more
    std::shared_ptr<const OpenFile> last_;
};

// Asks the kernel to read [offset, offset + len) of `fd` into the page cache ahead
// (POSIX_FADV_WILLNEED): the helpers' reads of one file interleave, so the kernel's own
// readahead, which follows one reader's sequence, would not see a copy's order. About 0.1 ms
// for 1 GiB already cached (measured on the development VM's ext4).
void advise_will_read(int fd, uint64_t offset, uint64_t len);

// Reads up to `len` bytes of `fd` at `offset` into `dst`; returns how many it read: fewer at
// the file's end or on an error, where the caller copies the rest from the mapping (which then
// behaves as the copy always would have).
uint64_t read_file_into(int fd, uint64_t offset, std::byte* dst, uint64_t len);

}  // namespace xfer
