// A payload's own copies on a real device (issue #18): `with w.timed(...)` around two
// cudaMemcpy calls made through ctypes, i.e. through a library xferlab does not control. CUPTI
// must join both device copies to the block, and the GIL evidence must follow the switch that
// decides it: ctypes.CDLL releases the GIL around a foreign call, ctypes.PyDLL keeps it.
#ifdef XFER_HAVE_CUDA
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

constexpr const char* kPayload = R"py(import ctypes, threading

def cudart():
    # The libcudart xferlab itself loaded: the same runtime, whatever its soname.
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libcudart.so" in line:
                return line.split()[-1]
    raise RuntimeError("libcudart is not loaded in this process")

def main(ctx):
    loader = getattr(ctypes, ctx.params["lib"])   # CDLL releases the GIL, PyDLL keeps it
    rt = loader(cudart())
    def work(i):
        w = ctx.worker(i)
        n = ctx.bytes
        host = (ctypes.c_ubyte * n)()
        for k in range(0, n, 4096):
            host[k] = (k // 4096 + i) % 251
        back = (ctypes.c_ubyte * n)()
        dev = ctypes.c_void_p()
        assert rt.cudaSetDevice(w.device) == 0
        assert rt.cudaMalloc(ctypes.byref(dev), ctypes.c_size_t(n)) == 0
        half = n // 2
        w.enter()
        ctx.barrier()
        for _ in range(ctx.copies):
            with w.timed(n, label="ctypes." + ctx.params["lib"] + " cudaMemcpy x2"):
                assert rt.cudaMemcpy(dev, host, ctypes.c_size_t(half), 1) == 0
                assert rt.cudaMemcpy(ctypes.c_void_p(dev.value + half), ctypes.byref(host, half),
                                     ctypes.c_size_t(n - half), 1) == 0
        assert rt.cudaMemcpy(back, dev, ctypes.c_size_t(n), 2) == 0
        w.verified(bytes(back) == bytes(host), "copied back with cudaMemcpy, compared in Python")
        rt.cudaFree(dev)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(ctx.threads)]
    for t in ts: t.start()
    for t in ts: t.join()
)py";

// The report wraps its lines: compare with every run of blanks and line breaks as one blank.
std::string squash(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool blank = c == ' ' || c == '\n';
        if (blank && !out.empty() && out.back() == ' ') continue;
        out += blank ? ' ' : c;
    }
    return out;
}

struct Outcome {
    CommandResult cmd;
    json run;
};

Outcome run_lib(const std::string& lib) {
    const fs::path dir = fresh_temp_dir("gpu-timed-" + lib);
    std::ofstream(dir / "ctypes_copy.py") << kPayload;
    std::ofstream(dir / "s.toml")
        << "[scenario]\nname = \"timed\"\nbackend = \"cuda\"\n"
           "[transfer]\ndirection = \"h2d\"\nbytes = \"8MiB\"\nhost_memory = \"pageable\"\n"
           "timing = \"cupti\"\nrepetitions = 3\nwarmup = 1\n"
           "[threads]\ncount = 2\n"
           "[[run]]\nlauncher = \"python\"\npayload = \"ctypes_copy.py\"\n"
           "[params]\nlib = \""
        << lib << "\"\n";
    Outcome o;
    o.cmd =
        run_command(xferlab() + " run --full '" + (dir / "s.toml").string() + "' --payload-dir '" +
                    dir.string() + "' --out '" + (dir / "out").string() + "'");
    o.run = json::parse(slurp(dir / "out" / "results.json")).at("runs").at(0);
    return o;
}

}  // namespace

TEST_CASE(
    "a timed block's device copies from a foreign library are joined, GIL as the library "
    "leaves it",
    "[gpu][timed]") {
    for (const std::string lib : {"CDLL", "PyDLL"}) {
        INFO(lib);
        const Outcome o = run_lib(lib);
        INFO(o.cmd.out);
        INFO(o.cmd.err);
        REQUIRE(o.cmd.exit_code == 0);
        CHECK(o.run.at("status") == "ok");
        const json& records = o.run.at("records");
        REQUIRE(records.size() == 8);  // 2 workers x (1 warm-up + 3)
        const int held = lib == "PyDLL" ? 2 : 0;
        int early = 0;
        for (const auto& r : records) {
            CHECK(r.at("source") == 1);
            CHECK(r.at("device_calls") == 2);
            CHECK(r.at("gil_held_calls") == held);
            CHECK(r.at("device_timing") == "cupti");
            CHECK(r.at("device_start_ns").get<int64_t>() >= r.at("host_start_ns").get<int64_t>());
            // cudaMemcpy from pageable memory returns once its last chunk is staged, before
            // the DMA has ended (CUDA's documented pageable semantics): the report says so.
            if (r.at("device_end_ns").get<int64_t>() > r.at("host_end_ns").get<int64_t>()) ++early;
        }
        if (early > 0)
            CHECK(contains(squash(o.cmd.out), std::to_string(early) +
                                                  " of 8 blocks returned before their device "
                                                  "copies ended"));
        else
            CHECK(!contains(o.cmd.out, "returned before"));
        const json& copies = o.run.at("device_copies");
        REQUIRE(copies.size() == 16);  // two per block
        uint64_t bytes = 0;
        for (const auto& c : copies) {
            CHECK(c.at("kind") == "HtoD");
            CHECK(c.at("src") == "pageable");
            CHECK(c.at("dst") == "device");
            bytes += c.at("size_bytes").get<uint64_t>();
        }
        CHECK(bytes == 8 * (uint64_t(8) << 20));
        CHECK(o.run.at("payload_verified").size() == 2);
        const std::string out = squash(o.cmd.out);
        CHECK(contains(out, "16 device copies joined (16 HtoD pageable->device)"));
        CHECK(contains(out, lib == "PyDLL" ? "GIL held in all 16 memcpy calls"
                                           : "GIL released in all 16 memcpy calls"));
    }
}
#endif
