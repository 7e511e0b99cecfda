// [staging] mapped_files = "read": a copy to the device whose source is a shared mapping of a
// regular file reads the file instead of faulting the mapping in (engine/mapped_files.hpp).
// Real files and mappings on this machine, the fake device: the bytes that arrive must be the
// mapping's in every case, and the file must be read only where that gives the same bytes.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/fake/host_staging_device.hpp"
#include "engine/mapped_files.hpp"
#include "engine/staging_engine.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace mapped_files_test {  // named: the unit tests are a unity build

const size_t kPage = size_t(sysconf(_SC_PAGESIZE));

// A file of `bytes` bytes of a pattern, removed at the end of the test.
struct TempFile {
    std::string path;
    std::vector<std::byte> bytes;

    TempFile(size_t n, int seed, const std::string& name = "file") {
        path = (std::filesystem::temp_directory_path() /
                ("xferlab-mapped-" + name + "-" + std::to_string(getpid())))
                   .string();
        bytes.resize(n);
        for (size_t i = 0; i < n; ++i)
            bytes[i] = std::byte(uint8_t(i * 131 + size_t(seed) * 7 + 1));
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, bytes.data(), n) == ssize_t(n));
        ::close(fd);
    }
    ~TempFile() { std::remove(path.c_str()); }
};

// `len` bytes of `path` from file offset `offset` (page-aligned), mapped with `flags`.
struct Mapping {
    std::byte* at = nullptr;
    size_t len = 0;

    Mapping(const std::string& path, size_t n, off_t offset, int flags, int prot = PROT_READ) {
        const int fd = ::open(path.c_str(), prot & PROT_WRITE ? O_RDWR : O_RDONLY);
        REQUIRE(fd >= 0);
        void* p = ::mmap(nullptr, n, prot, flags, fd, offset);
        ::close(fd);  // the mapping keeps the file
        REQUIRE(p != MAP_FAILED);
        at = static_cast<std::byte*>(p);
        len = n;
    }
    ~Mapping() { ::munmap(at, len); }
};

// Whether this kernel has PROCMAP_QUERY (Linux 6.11), by its release alone: asking the code under
// test would let a broken query skip every test.
bool kernel_has_file_query() {
    struct utsname u {};
    if (::uname(&u) != 0) return false;
    int major = 0, minor = 0;
    if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
    return major > 6 || (major == 6 && minor >= 11);
}

// Catch2 2 has no SKIP: says why and leaves the test.
#define SKIP_WITHOUT_FILE_QUERY()                                           \
    if (!kernel_has_file_query()) {                                         \
        WARN("skipped: this kernel is older than 6.11 (no PROCMAP_QUERY)"); \
        return;                                                             \
    }

StagingConfig config(bool shared_buffers, bool read) {
    StagingConfig c;
    c.threads = 3;
    c.buffers = 2;
    c.chunk = 4 * kPage;
    c.dma_chunk = shared_buffers ? 16 * kPage : 0;
    c.read_mapped_files = read;
    return c;
}

// `bytes` bytes from `src` to the fake device through an engine of `c`; what arrived, and the
// engine's totals.
struct Copied {
    std::vector<std::byte> device;
    StagingTotals totals;
};
Copied copy_to_device(const StagingConfig& c, const std::byte* src, size_t bytes) {
    StagingEngine engine(c, std::make_unique<HostStagingDevice>(staging_layout(c)));
    engine.start();
    Copied out;
    out.device.resize(bytes);
    engine.to_device(out.device.data(), src, bytes);
    out.totals = engine.totals();
    engine.stop();
    return out;
}

}  // namespace mapped_files_test

using namespace mapped_files_test;

TEST_CASE("mapped files: the file behind a shared mapping, at the source's offset in it",
          "[staging][mapped_files]") {
    SKIP_WITHOUT_FILE_QUERY();
    TempFile f(64 * kPage, 3);
    Mapping m(f.path, 32 * kPage, off_t(8 * kPage), MAP_SHARED);  // file pages 8..39
    MappedFiles files;
    const auto found = files.find(m.at + 123, 20 * kPage);
    REQUIRE(found.has_value());
    CHECK(found->offset == 8 * kPage + 123);
    std::vector<std::byte> read(100);
    CHECK(read_file_into(*found->file, found->offset, read.data(), read.size()) == 100);
    CHECK(std::memcmp(read.data(), m.at + 123, 100) == 0);
    const auto again = files.find(m.at + 5 * kPage, kPage);
    REQUIRE(again.has_value());
    CHECK(again->offset == 13 * kPage);

    SECTION("not past the mapping's end") { CHECK_FALSE(files.find(m.at + kPage, 32 * kPage)); }
    SECTION("not anonymous memory") {
        std::vector<std::byte> anonymous(4 * kPage);
        CHECK_FALSE(files.find(anonymous.data(), anonymous.size()));
    }
    SECTION("not a private mapping: it may hold pages the process changed") {
        Mapping priv(f.path, 4 * kPage, 0, MAP_PRIVATE);
        CHECK_FALSE(files.find(priv.at, kPage));
    }
    SECTION("not when the path names another file now") {
        // Unlinked, the mapping's file is named "<path> (deleted)" by the kernel: a file made
        // under that very name is another inode, which must not be read for it.
        REQUIRE(::unlink(f.path.c_str()) == 0);
        TempFile impostor(64 * kPage, 4, "impostor");
        REQUIRE(std::rename(impostor.path.c_str(), (f.path + " (deleted)").c_str()) == 0);
        CHECK_FALSE(files.find(m.at, kPage));
        std::remove((f.path + " (deleted)").c_str());
    }
    SECTION("zero bytes: nothing to read") { CHECK_FALSE(files.find(m.at, 0)); }
}

TEST_CASE("mapped files: a copy from a shared file mapping reads the file, byte-exact",
          "[staging][mapped_files]") {
    SKIP_WITHOUT_FILE_QUERY();
    TempFile f(100 * kPage + 77, 5);
    const size_t bytes = 90 * kPage + 77;  // from file offset 10 pages to the file's end
    Mapping m(f.path, bytes, off_t(10 * kPage), MAP_SHARED);
    for (bool shared : {false, true}) {
        CAPTURE(shared);
        const Copied read = copy_to_device(config(shared, true), m.at, bytes);
        CHECK(std::memcmp(read.device.data(), f.bytes.data() + 10 * kPage, bytes) == 0);
        CHECK(read.totals.file_read_bytes == bytes);
        CHECK(read.totals.to_device_bytes == bytes);
        const Copied copied = copy_to_device(config(shared, false), m.at, bytes);
        CHECK(copied.device == read.device);
        CHECK(copied.totals.file_read_bytes == 0);
    }
}

TEST_CASE("mapped files: a private mapping's changed page arrives as the mapping holds it",
          "[staging][mapped_files]") {
    SKIP_WITHOUT_FILE_QUERY();
    TempFile f(40 * kPage, 6);
    Mapping m(f.path, 40 * kPage, 0, MAP_PRIVATE, PROT_READ | PROT_WRITE);
    m.at[5 * kPage + 9] = std::byte{0xEE};  // a copy-on-write page the file does not have
    REQUIRE(f.bytes[5 * kPage + 9] != std::byte{0xEE});
    const Copied c = copy_to_device(config(true, true), m.at, 40 * kPage);
    CHECK(c.device[5 * kPage + 9] == std::byte{0xEE});
    CHECK(std::memcmp(c.device.data(), m.at, 40 * kPage) == 0);
    CHECK(c.totals.file_read_bytes == 0);
}

TEST_CASE("mapped files: a file shorter than the copied range reads what it has, then the mapping",
          "[staging][mapped_files]") {
    SKIP_WITHOUT_FILE_QUERY();
    // The file ends 50 bytes into its last page: the mapping shows zeros after that within the
    // page, pread stops at the end; the rest comes from the mapping.
    TempFile f(20 * kPage, 7);
    Mapping m(f.path, 20 * kPage, 0, MAP_SHARED);
    REQUIRE(::truncate(f.path.c_str(), off_t(19 * kPage + 50)) == 0);
    const Copied c = copy_to_device(config(true, true), m.at, 20 * kPage);
    CHECK(std::memcmp(c.device.data(), f.bytes.data(), 19 * kPage + 50) == 0);
    for (size_t i = 19 * kPage + 50; i < 20 * kPage; ++i) REQUIRE(c.device[i] == std::byte{0});
    CHECK(c.totals.file_read_bytes == 19 * kPage + 50);
}

namespace mapped_files_test {

// The fraction of [offset, offset + len) of `path` in the page cache (mincore of a fresh
// mapping); -1 where it cannot be read.
double resident(const std::string& path, size_t offset, size_t len) {
    Mapping m(path, len, off_t(offset), MAP_SHARED);
    std::vector<unsigned char> pages((len + kPage - 1) / kPage);
    if (::mincore(m.at, len, pages.data()) != 0) return -1;
    size_t in = 0;
    for (unsigned char p : pages) in += p & 1;
    return double(in) / double(pages.size());
}

}  // namespace mapped_files_test

TEST_CASE("mapped files: a read that finds its file's pages on disk asks for the next 32 MiB first",
          "[staging][mapped_files]") {
    // 40 MiB on disk, dropped from the page cache; 64 KiB read at its start. The kernel's own
    // read-ahead after one small read reaches a few hundred KiB; pages 31-32 MiB in come into
    // the cache only through the read's POSIX_FADV_WILLNEED (asynchronous: waited for).
    const size_t n = size_t(40) << 20;
    TempFile f(n, 9, "cold");
    {
        const int fd = ::open(f.path.c_str(), O_RDONLY);
        REQUIRE(fd >= 0);
        ::fdatasync(fd);
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        ::close(fd);
    }
    const size_t far = size_t(31) << 20, far_len = size_t(1) << 20;
    if (resident(f.path, 0, n) > 0.01) {
        WARN(
            "skipped: the file's pages stayed in the page cache (tmpfs, or a sandbox that "
            "ignores POSIX_FADV_DONTNEED)");
        return;
    }
    const OpenFile file(f.path.c_str());
    REQUIRE(file.fd() >= 0);
    std::vector<std::byte> got(64 << 10);
    CHECK(read_file_into(file, 0, got.data(), got.size()) == got.size());
    CHECK(std::memcmp(got.data(), f.bytes.data(), got.size()) == 0);
    double ahead = 0;
    for (int i = 0; i < 200 && ahead < 1.0; ++i) {  // up to 2 s for the disk
        ahead = resident(f.path, far, far_len);
        if (ahead < 1.0) ::usleep(10'000);
    }
    CHECK(ahead == 1.0);
    // Past the window nothing was asked for.
    CHECK(resident(f.path, size_t(36) << 20, far_len) < 0.5);
}
