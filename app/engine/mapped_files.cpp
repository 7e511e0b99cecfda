#include "engine/mapped_files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

uint64_t device_number(uint32_t major_number, uint32_t minor_number) {
    return uint64_t(makedev(major_number, minor_number));
}

}  // namespace

OpenFile::~OpenFile() { ::close(fd_); }

MappedFiles::~MappedFiles() {
    if (maps_fd_ >= 0) ::close(maps_fd_);
}

std::optional<FileRange> MappedFiles::find(const void* p, uint64_t len) {
    if (len == 0) return std::nullopt;
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
    const uint64_t device = device_number(q.dev_major, q.dev_minor);
    const FileRange found{nullptr, q.vma_offset + (start - q.vma_start)};
    if (last_ && last_->is(device, q.inode)) return FileRange{last_, found.offset};
    // O_NONBLOCK: the path may name something else by now (a FIFO would block the open).
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;  // deleted, renamed, no permission: read the mapping
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_dev) != device ||
        uint64_t(st.st_ino) != q.inode) {
        ::close(fd);
        return std::nullopt;
    }
    last_ = std::make_shared<const OpenFile>(fd, device, q.inode);
    return FileRange{last_, found.offset};
}

void advise_will_read(int fd, uint64_t offset, uint64_t len) {
    (void)::posix_fadvise(fd, off_t(offset), off_t(len), POSIX_FADV_WILLNEED);  // advice only
}

uint64_t read_file_into(int fd, uint64_t offset, std::byte* dst, uint64_t len) {
    uint64_t done = 0;
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
