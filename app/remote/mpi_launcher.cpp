#include "remote/mpi_launcher.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backend/backend.hpp"
#include "remote/local_workers.hpp"
#include "remote/mpi_job.hpp"
#include "results/serialize.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

void shift_to_rank0_clock(LocalOutcome& o, int64_t offset) {
    for (Record& r : o.records) {
        r.host_start_ns -= offset;
        r.host_end_ns -= offset;
        if (r.device_start_ns >= 0) r.device_start_ns -= offset;
        if (r.device_end_ns >= 0) r.device_end_ns -= offset;
    }
    for (DeviceCopy& c : o.device_copies) {
        c.start_ns -= offset;
        c.end_ns -= offset;
    }
    for (HelperThread& h : o.helper_threads)
        for (auto& span : h.busy) {
            span[0] -= offset;
            span[1] -= offset;
        }
}

void coordinate_ranks(StartGate& gate) {
    const bool arrived = gate.wait_until_arrived();
    if (mpi_job_all(arrived))
        gate.release();
    else
        gate.abort();
}

std::string offsets_note(const std::vector<ClockOffset>& offsets,
                         const std::vector<std::string>& hosts) {
    std::string text = fmt::format(
        "{} MPI ranks on {}; clocks aligned to rank 0's by ping-pong "
        "(offset +- half the best round trip):",
        offsets.size(), fmt::join(hosts, ", "));
    for (size_t r = 1; r < offsets.size(); ++r)
        text +=
            fmt::format(" rank {} {} +- {}", r, format_duration_ns(double(offsets[r].offset_ns)),
                        format_duration_ns(double(offsets[r].accuracy_ns)));
    return text;
}

class MpiLauncher final : public Launcher {
  public:
    std::string name() const override { return "mpi"; }
    // Outside mpirun (or in a build without MPI) its runs are skipped, saying why.
    RunHere can_run(const Run&) const override {
        return mpi_job().joined ? RunHere::runs() : RunHere::skip(mpi_job().why_not);
    }

    void launch(RunContext& ctx) override {
        const MpiJob& me = mpi_job();
        // Rank 0 may arrive late from a non-mpi run: the others wait without spinning.
        mpi_job_lazy_barrier();
        const std::vector<ClockOffset> offsets = mpi_job_clock_offsets();

        std::vector<int> mine;
        for (int i = me.rank; i < ctx.run.settings.threads.count; i += me.size) mine.push_back(i);
        LocalOutcome outcome = run_local_workers(ctx.run, ctx.backend, mine, ctx.payload_dir,
                                                 ctx.stop, "mpi", coordinate_ranks);
        nlohmann::json message = to_json(outcome);
        message["hostname"] = me.hostname;
        message["rank"] = me.rank;
        const std::vector<std::string> all = mpi_job_gather(compact_json(message));
        if (me.rank != 0) return;

        std::vector<std::string> hosts;
        std::vector<std::vector<std::string>> notes;  // per rank
        for (size_t r = 0; r < all.size(); ++r) {
            nlohmann::json m = nlohmann::json::parse(all[r]);
            LocalOutcome o = local_outcome_from_json(m);
            shift_to_rank0_clock(o, offsets[r].offset_ns);
            merge_payload_facts(o, ctx);
            hosts.push_back(fmt::format("{} (rank {})", m.at("hostname").get<std::string>(), r));
            ctx.remote_records.insert(ctx.remote_records.end(), o.records.begin(), o.records.end());
            ctx.remote_threads.insert(ctx.remote_threads.end(), o.threads.begin(), o.threads.end());
            ctx.remote_helper_threads.insert(ctx.remote_helper_threads.end(),
                                             o.helper_threads.begin(), o.helper_threads.end());
            for (auto& e : o.errors) ctx.errors.push_back(fmt::format("rank {}: {}", r, e));
            notes.push_back(std::move(o.notes));
        }
        for (auto& note : merge_notes(notes, "ranks")) ctx.notes.push_back(note);
        ctx.notes.push_back(offsets_note(offsets, hosts));
    }
};

}  // namespace

std::unique_ptr<Launcher> make_mpi_launcher() { return std::make_unique<MpiLauncher>(); }

}  // namespace xfer
