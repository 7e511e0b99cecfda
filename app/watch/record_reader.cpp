#include "watch/record_reader.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace xfer::watch {
namespace fs = std::filesystem;
namespace {

std::string text_of(const char* s, size_t size) { return std::string(s, strnlen(s, size)); }

void add_affinity(TraceThread& t, const xw_affinity& a) {
    for (size_t byte = 0; byte < sizeof a.bits; ++byte)
        for (int bit = 0; bit < 8; ++bit)
            if (a.bits[byte] & (1u << bit)) t.cpus.push_back(int(a.first_cpu + byte * 8 + bit));
}

bool all_zero(const char* p, size_t n) {
    return std::all_of(p, p + n, [](char c) { return c == 0; });
}

void take(ProcessTrace& t, uint32_t type, const xw_record& r) {
    switch (type) {
        case XW_API:
            t.calls.push_back({r.tid, r.u.api});
            break;
        case XW_MEMCPY:
            t.copies.push_back(r.u.memcpy);
            break;
        case XW_MEMSET:
            t.memsets.push_back(r.u.memset);
            break;
        case XW_THREAD: {
            TraceThread& th = t.threads[r.tid];
            th.tid = r.tid;
            th.info = r.u.thread;
            break;
        }
        case XW_AFFINITY: {
            TraceThread& th = t.threads[r.tid];
            th.tid = r.tid;
            add_affinity(th, r.u.affinity);
            break;
        }
        case XW_NAME:
            t.names[{r.u.name.domain, r.u.name.cbid}] =
                text_of(r.u.name.name, sizeof r.u.name.name);
            break;
        case XW_DEVICE:
            t.devices[r.u.device.device] = r.u.device;
            break;
        case XW_NUMA:
            t.samples[r.u.numa.correlation] = r.u.numa;
            break;
        case XW_NOTE:
            t.notes.push_back(text_of(r.u.note.text, sizeof r.u.note.text));
            break;
        case XW_CLOCK:
            t.clock = r.u.clock;
            break;
        case XW_END:
            t.end = r.u.end;
            break;
        default:
            ++t.unknown_types;
            return;
    }
    ++t.records;
}

}  // namespace

ProcessTrace read_process_trace(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": cannot be read: " + std::strerror(errno));
    ProcessTrace t;
    t.file = file.string();
    xw_header h{};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h) ||
        std::memcmp(h.magic, XW_MAGIC, sizeof h.magic) != 0)
        throw std::runtime_error(file.string() +
                                 ": not a record file of xferlab watch (no XFWATCH header)");
    if (h.version != XW_VERSION || h.record_bytes != XW_RECORD_BYTES)
        throw std::runtime_error(file.string() + ": record file version " +
                                 std::to_string(h.version) + " with " +
                                 std::to_string(h.record_bytes) +
                                 "-byte records; this xferlab "
                                 "reads version " +
                                 std::to_string(XW_VERSION) + " (64 bytes)");
    t.pid = h.pid;
    t.ppid = h.ppid;
    t.start_ns = h.start_monotonic_ns;
    // A segment at a time: the file of a long program can be far larger than what is kept.
    std::vector<char> buffer(size_t(1) << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const size_t got = size_t(in.gcount());
        for (size_t at = 0; at + XW_RECORD_BYTES <= got; at += XW_RECORD_BYTES) {
            xw_record r;
            std::memcpy(&r, buffer.data() + at, sizeof r);
            if ((r.commit >> 16) != XW_COMMIT) {
                if (!all_zero(buffer.data() + at, XW_RECORD_BYTES)) ++t.torn;
                continue;
            }
            take(t, r.commit & 0xffffu, r);
        }
    }
    return t;
}

std::vector<ProcessTrace> read_watch_folder(const fs::path& dir) {
    std::vector<ProcessTrace> out;
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == XW_FILE_SUFFIX)
            files.push_back(entry.path());
    if (ec) throw std::runtime_error(dir.string() + ": cannot be listed: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.push_back(read_process_trace(f));
    std::stable_sort(out.begin(), out.end(), [](const ProcessTrace& a, const ProcessTrace& b) {
        return a.start_ns < b.start_ns;
    });
    return out;
}

std::string function_name(const ProcessTrace& t, uint8_t domain, uint32_t cbid) {
    if (auto it = t.names.find({domain, cbid}); it != t.names.end()) return it->second;
    return std::string(domain == XW_DRIVER ? "driver" : "runtime") + " callback " +
           std::to_string(cbid);
}

}  // namespace xfer::watch
