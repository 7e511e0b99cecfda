#pragma once
// The file behind a copy's source ([staging] mapped_files = "read"). A file mapped with
// numpy.memmap (or mmap.mmap, as safetensors-style loaders do) and copied right after it is
// mapped has every page faulted in by the copy: a fault per page or fault-around block, each
// mapping page-cache pages into the process. Reading the file instead (pread into the
// page-locked buffers) takes the same bytes from the same page cache and maps nothing.
//
// Only where that gives the mapping's bytes: a shared mapping (MAP_SHARED: a private one may
// hold pages the process changed) of a regular file on a local file system whose reads and
// mappings share one page cache (ext4, xfs, btrfs, f2fs, tmpfs: not FUSE, NFS, sysfs or procfs),
// the source wholly inside one mapping, the file at its path still the one mapped (device and
// inode compared; btrfs reports another device for a subvolume's files, so it is never read
// there). Linux 6.11's PROCMAP_QUERY finds the mapping in one ioctl; where the kernel has none,
// no file is found and copies read the mapping as before.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace xfer {

// A file held open for the copy that reads it (closed when the copy is done with it).
class OpenFile {
  public:
    // Opens `path` for reading; fd() < 0 where it cannot.
    explicit OpenFile(const char* path);
    ~OpenFile();
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    int fd() const { return fd_; }
    // Asks the kernel to read [from, to) of the file ahead (POSIX_FADV_WILLNEED), past what was
    // asked for already: each byte once, whichever reading thread asks.
    void read_ahead(uint64_t from, uint64_t to) const;

  private:
    int fd_;
    mutable std::atomic<uint64_t> asked_until_{0};  // read_ahead: asked up to this offset
};

// Where a source's bytes are in a file: `offset` is the file offset of its first byte.
struct FileRange {
    std::shared_ptr<const OpenFile> file;
    uint64_t offset = 0;
};

// Finds the file behind a source. One per engine; thread-safe. Keeps no file open between
// copies (a deleted file's space is not held by the engine).
class MappedFiles {
  public:
    MappedFiles() = default;
    ~MappedFiles();
    MappedFiles(const MappedFiles&) = delete;
    MappedFiles& operator=(const MappedFiles&) = delete;

    // The file behind [p, p + len), opened, or nullopt (see above: anonymous memory, a private
    // mapping, several mappings, another file system, no PROCMAP_QUERY, a file that cannot be
    // opened or is no longer the one mapped). Costs an ioctl, and an open() and fstat() where
    // the mapping is a file's.
    std::optional<FileRange> find(const void* p, uint64_t len);

  private:
    struct Mapping {               // what the kernel says of the mapping holding a source
        uint64_t file_offset = 0;  // of the source's first byte
        uint64_t device = 0;
        uint64_t inode = 0;
        std::string path;
    };
    std::optional<Mapping> query(const void* p, uint64_t len);  // the ioctl, under mutex_

    std::mutex mutex_;       // the /proc/self/maps descriptor
    int maps_fd_ = -1;       // /proc/self/maps, opened on first use
    bool no_query_ = false;  // the kernel has no PROCMAP_QUERY (or no /proc): asked no more
};

// What a read that would wait for the disk asks the kernel to read ahead of it first
// (POSIX_FADV_WILLNEED). The helpers read a file's pieces at interleaved offsets, which the
// kernel's own read-ahead takes for random reads: from a cold file on an H100 host's disk "read"
// then ran at 0.72x of faulting the mapping in (docs/results/one-engine-h100.md). A window
// several DMAs wide keeps the disk's queue full while the helpers take pieces anywhere in it.
// The kernel caps one request at the device's read-ahead size (read_ahead_kb: often 128 KiB),
// so the window is asked for in steps of that.
constexpr uint64_t kFileReadAheadBytes = uint64_t(32) << 20;
constexpr uint64_t kFileReadAheadStep = uint64_t(128) << 10;

// Reads up to `len` bytes of `file` at `offset` into `dst`; returns how many it read: fewer at
// the file's end or on an error, where the caller copies the rest from the mapping (which then
// behaves as the copy always would have). Pages in the page cache are read without waiting;
// where some are not, the next kFileReadAheadBytes are asked for before waiting for them.
uint64_t read_file_into(const OpenFile& file, uint64_t offset, std::byte* dst, uint64_t len);

}  // namespace xfer
