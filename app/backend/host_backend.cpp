// The host backend: one worker's source and destination are host buffers and the copy is a
// plain std::memcpy, the same routine every launcher times.
#include "backend/host_backend.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xfer {
namespace {

// The kinds of source and destination a direction stands for on the host: the device side is
// played by pageable memory.
struct Sides {
    HostMemory source;
    HostMemory destination;
};

// What only the cuda backend has, one setting at a time; "" when the host can model it.
std::string direction_needs_cuda(Direction d) {
    if (d != Direction::d2d && d != Direction::p2p) return "";
    return "transfer.direction = " + quoted_value(d) + " needs the cuda backend (" +
           (d == Direction::p2p ? "copies between two devices" : "device memory on both sides") +
           ")";
}

// The host stands in for one device: a list naming another is a scenario meant for a GPU
// machine, and running it here would not be the experiment it describes.
std::string devices_need_cuda(const std::vector<int>& devices) {
    const auto other = std::find_if(devices.begin(), devices.end(), [](int d) { return d != 0; });
    if (other == devices.end()) return "";
    std::string list;
    for (int d : devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
    return "transfer.devices = [" + list + "] needs the cuda backend (device " +
           std::to_string(*other) + "; the host backend stands in for one device, 0)";
}

std::string host_memory_needs_cuda(const HostMemory& m) {
    if (!is_page_locked(m.kind)) return "";
    return "transfer.host_memory = " + quoted_value(m.kind) +
           " needs the cuda backend (page-locked memory is allocated by CUDA)";
}

std::string context_needs_cuda(ContextKind c) {
    if (c != ContextKind::per_worker) return "";
    return "transfer.context = " + quoted_value(c) +
           " needs the cuda backend (a CUDA context per worker)";
}

std::string path_needs_cuda(CopyPath p) {
    if (p == CopyPath::driver) return "";
    return "transfer.path = " + quoted_value(p) +
           " needs the cuda backend (it changes how pageable memory reaches a device's DMA "
           "engine)";
}

Sides sides_of(const TransferSpec& t) {
    const HostMemory stand_in{HostMemoryKind::pageable, -1};
    switch (t.direction) {
        case Direction::h2d:
            return {t.host_memory, stand_in};
        case Direction::d2h:
            return {stand_in, t.host_memory};
        case Direction::h2h:
            return {t.host_memory, t.host_memory};
        case Direction::d2d:
        case Direction::p2p:
            break;
    }
    throw std::runtime_error(direction_needs_cuda(t.direction));
}

class HostTransfer final : public WorkerTransfer {
  public:
    HostTransfer(HostBuffer source, HostBuffer destination, int worker, FirstTouch first_touch)
        : src_(std::move(source)),
          dst_(std::move(destination)),
          worker_(worker),
          first_touch_(first_touch) {
        if (first_touch_ == FirstTouch::main) {
            fill_pattern(src_.data(), src_.size(), worker_);
            dst_.touch();
        }
    }

    void attach_thread() override {
        if (attached_) return;
        attached_ = true;
        if (first_touch_ != FirstTouch::main) fill_pattern(src_.data(), src_.size(), worker_);
        if (first_touch_ == FirstTouch::worker) dst_.touch();
        dst_dirty_ = true;  // copies may follow from here on
    }

    // The timed part: nothing but the copy.
    CopyOutcome copy() override {
        std::memcpy(dst_.data(), src_.data(), src_.size());
        return {};
    }

    int64_t verify() override { return find_pattern_mismatch(dst_.data(), dst_.size(), worker_); }

    // The host backend's "device" is host memory too: the source is the side read.
    const void* host_side() const override { return src_.data(); }

    void poison_destination() override {
        if (!dst_dirty_) return;  // still zero from allocation; writing it would be a touch
        std::memset(dst_.data(), 0, dst_.size());
        dst_dirty_ = false;
    }

    uint64_t bytes() const override { return src_.size(); }

    void corrupt_destination_for_test(uint64_t offset) override {
        if (offset >= dst_.size()) throw std::out_of_range("corrupt offset beyond the destination");
        dst_.data()[offset] ^= std::byte{0xFF};  // pattern bytes are odd, so this always differs
        dst_dirty_ = true;
    }

    const HostBuffer& source() const { return src_; }
    const HostBuffer& destination() const { return dst_; }

  private:
    HostBuffer src_;
    HostBuffer dst_;
    int worker_;
    FirstTouch first_touch_;
    bool attached_ = false;
    bool dst_dirty_ = false;
};

std::string read_first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

class HostBackend final : public Backend {
  public:
    explicit HostBackend(bool standing_in) : standing_in_(standing_in) {}
    std::string name() const override { return "host"; }

    Need memory_needed(const TransferSpec& t, int workers, bool = false) const override {
        Sides s = sides_of(t);
        uint64_t per_worker = host_memory_footprint(s.source, t.bytes) +
                              host_memory_footprint(s.destination, t.bytes);
        return {per_worker * uint64_t(workers < 0 ? 0 : workers), 0};
    }

    RunHere can_run(const TransferSpec& t, int) const override {
        if (std::string why = host_needs_cuda(t); !why.empty()) {
            if (standing_in_) return RunHere::skip(why);
            return RunHere::refuse(why +
                                   "; this run's backend is host (use backend = \"cuda\", or "
                                   "\"auto\" to skip such runs where CUDA is unavailable)");
        }
        try {
            Sides s = sides_of(t);
            check_host_memory(s.source);  // what the host itself may lack: a NUMA node, libnuma
            check_host_memory(s.destination);
        } catch (const std::exception& e) {
            return RunHere::refuse(e.what());
        }
        return RunHere::runs();
    }

    std::unique_ptr<WorkerTransfer> prepare(const TransferSpec& t, int worker) override {
        Sides s = sides_of(t);
        HostBuffer src = HostBuffer::allocate(s.source, t.bytes);
        HostBuffer dst = HostBuffer::allocate(s.destination, t.bytes);
        return std::make_unique<HostTransfer>(std::move(src), std::move(dst), worker,
                                              t.first_touch);
    }

    nlohmann::json describe() const override {
        nlohmann::json numa = "available";
        try {
            check_host_memory(HostMemory{HostMemoryKind::numa, 0});
        } catch (const std::exception& e) {
            numa = e.what();
        }
        return {
            {"name", "host"},
            {"copy", "std::memcpy between host buffers; the device side is pageable memory"},
            {"page_size", base_page_size()},
            {"huge_page_size", host_page_size(HostMemory{HostMemoryKind::hugepage, -1})},
            {"transparent_hugepage",
             read_first_line("/sys/kernel/mm/transparent_hugepage/enabled")},
            {"numa", numa},
        };
    }

  private:
    bool standing_in_;  // for cuda, which backend "auto" could not give here
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(bool standing_in) {
    return std::make_unique<HostBackend>(standing_in);
}

std::string host_needs_cuda(const TransferSpec& t) {
    for (std::string why : {direction_needs_cuda(t.direction), devices_need_cuda(t.devices),
                            host_memory_needs_cuda(t.host_memory), context_needs_cuda(t.context),
                            path_needs_cuda(t.path)})
        if (!why.empty()) return why;
    return "";
}

const HostBuffer* host_source(const WorkerTransfer& transfer) {
    auto* t = dynamic_cast<const HostTransfer*>(&transfer);
    return t ? &t->source() : nullptr;
}

const HostBuffer* host_destination(const WorkerTransfer& transfer) {
    auto* t = dynamic_cast<const HostTransfer*>(&transfer);
    return t ? &t->destination() : nullptr;
}

}  // namespace xfer
