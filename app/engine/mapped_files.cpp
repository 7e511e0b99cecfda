#include "engine/mapped_files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace xfer {

namespace {

// Linux's PROCMAP_QUERY (include/uapi/linux/fs.h, 6.11), for headers older than the kernel.
struct ProcmapQuery {
    uint64_t size;
    uint64_t query_flags;
    uint64_t query_addr;
    uint64_t vma_start;
    uint64_t vma_end;
    uint64_t vma_flags;
    uint64_t vma_page_size;
    uint64_t vma_offset;  // the file offset of vma_start, in bytes
    uint64_t inode;
    uint32_t dev_major;
    uint32_t dev_minor;
    uint32_t vma_name_size;
    uint32_t build_id_size;
    uint64_t vma_name_addr;
    uint64_t build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104, "the kernel's struct procmap_query");
constexpr unsigned long kProcmapQuery = _IOWR('f', 17, ProcmapQuery);
constexpr uint64_t kVmaReadable = 0x01;
constexpr uint64_t kVmaShared = 0x08;
constexpr uint64_t kFileBackedVma = 0x20;  // query: the covering mapping, if file-backed

// Local file systems whose read() and mmap() share one page cache, so a read gives what the
// mapping shows. Not FUSE (direct_io reads bypass it), NFS, or sysfs/procfs/debugfs files
// (whose reads may act on a device).
bool reads_as_mapped(int fd) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0) return false;
    switch (static_cast<unsigned long>(fs.f_type)) {
        case EXT4_SUPER_MAGIC:  // ext2, ext3 and ext4 share it
        case XFS_SUPER_MAGIC:
        case BTRFS_SUPER_MAGIC:
        case F2FS_SUPER_MAGIC:
        case TMPFS_MAGIC:
            return true;
        default:
            return false;
    }
}

}  // namespace

// O_NONBLOCK: the path may name something else by now (a FIFO would block the open).
OpenFile::OpenFile(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {}

OpenFile::~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
}

MappedFiles::~MappedFiles() {
    if (maps_fd_ >= 0) ::close(maps_fd_);
}

std::optional<MappedFiles::Mapping> MappedFiles::query(const void* p, uint64_t len) {
    std::lock_guard lock(mutex_);
    if (no_query_) return std::nullopt;
    if (maps_fd_ < 0) maps_fd_ = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (maps_fd_ < 0) {
        no_query_ = true;  // no /proc (a sandbox): nothing to ask
        return std::nullopt;
    }
    char path[PATH_MAX];
    ProcmapQuery q{};
    q.size = sizeof q;
    q.query_flags = kFileBackedVma;
    q.query_addr = reinterpret_cast<uintptr_t>(p);
    q.vma_name_addr = reinterpret_cast<uintptr_t>(path);
    q.vma_name_size = sizeof path;
    if (::ioctl(maps_fd_, kProcmapQuery, &q) != 0) {
        // ENOENT: no file-backed mapping there (anonymous memory); ENOTTY/EINVAL: a kernel
        // before 6.11, which will not learn it.
        if (errno == ENOTTY || errno == EINVAL) no_query_ = true;
        return std::nullopt;
    }
    const uint64_t start = reinterpret_cast<uintptr_t>(p);
    if ((q.vma_flags & (kVmaReadable | kVmaShared)) != (kVmaReadable | kVmaShared) ||
        start < q.vma_start || len > q.vma_end - start || q.vma_name_size == 0)
        return std::nullopt;
    return Mapping{q.vma_offset + (start - q.vma_start),
                   uint64_t(makedev(q.dev_major, q.dev_minor)), q.inode, path};
}

std::optional<FileRange> MappedFiles::find(const void* p, uint64_t len) {
    if (len == 0) return std::nullopt;
    const std::optional<Mapping> m = query(p, len);
    if (!m) return std::nullopt;
    // Outside the lock: an open may wait for its file system.
    auto file = std::make_shared<const OpenFile>(m->path.c_str());
    const int fd = file->fd();
    if (fd < 0) return std::nullopt;  // deleted, renamed, no permission: read the mapping
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_dev) != m->device ||
        uint64_t(st.st_ino) != m->inode || !reads_as_mapped(fd))
        return std::nullopt;
    return FileRange{std::move(file), m->file_offset};
}

void OpenFile::read_ahead(uint64_t from, uint64_t to) const {
    uint64_t asked = asked_until_.load(std::memory_order_relaxed);
    do {
        if (asked >= to) return;
        from = std::max(from, asked);
    } while (!asked_until_.compare_exchange_weak(asked, to, std::memory_order_relaxed));
    for (uint64_t at = from; at < to; at += kFileReadAheadStep)
        (void)::posix_fadvise(fd_, off_t(at), off_t(std::min(kFileReadAheadStep, to - at)),
                              POSIX_FADV_WILLNEED);
}

uint64_t read_file_into(const OpenFile& file, uint64_t offset, std::byte* dst, uint64_t len) {
    const int fd = file.fd();
    uint64_t done = 0;
    // A cached file's bytes come without waiting (RWF_NOWAIT); where the next ones would wait
    // for the disk, the file's next kFileReadAheadBytes are asked for first, in the kernel's
    // large requests, then this read waits like any other.
    bool waits = false;
    while (done < len && !waits) {
        iovec part{dst + done, size_t(len - done)};
        const ssize_t n = ::preadv2(fd, &part, 1, off_t(offset + done), RWF_NOWAIT);
        if (n > 0) {
            done += uint64_t(n);
        } else if (n == 0) {
            return done;  // the file's end
        } else if (errno != EINTR) {
            // EAGAIN: not in the page cache; anything else (a kernel or file system without
            // RWF_NOWAIT): the plain read below decides.
            if (errno == EAGAIN)
                file.read_ahead(offset + done, offset + done + kFileReadAheadBytes);
            waits = true;
        }
    }
    while (done < len) {
        const ssize_t n = ::pread(fd, dst + done, len - done, off_t(offset + done));
        if (n > 0) {
            done += uint64_t(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            break;  // the file's end (shorter than its mapping) or an error
        }
    }
    return done;
}

}  // namespace xfer
