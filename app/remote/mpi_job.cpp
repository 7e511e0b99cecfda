#include "remote/mpi_job.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

#include "system/hostname.hpp"
#include "util/clock.hpp"

#ifdef XFER_HAVE_MPI
#include <mpi.h>
#endif

namespace xfer {
namespace {

MpiJob g_job;


// mpirun (Open MPI), PMI (MPICH, Slurm's srun) and PMIx all leave one of these.
bool started_by_mpirun() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

}  // namespace

const MpiJob& mpi_job() { return g_job; }

#ifdef XFER_HAVE_MPI

void mpi_job_begin() {
    g_job.hostname = this_hostname();
    if (g_job.joined) return;
    if (!started_by_mpirun()) {
        g_job.why_not = "not started by mpirun: run `mpirun -n N xferlab run FILE`";
        return;
    }
    int provided = 0;
    // Worker threads never call MPI; the start coordinator does, on its own thread.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        throw std::runtime_error("the MPI library does not support MPI_THREAD_SERIALIZED");
    MPI_Comm_rank(MPI_COMM_WORLD, &g_job.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_job.size);
    g_job.joined = true;
}

void mpi_job_end() {
    if (!g_job.joined) return;
    mpi_job_lazy_barrier();
    MPI_Finalize();
    g_job.joined = false;
}

void mpi_job_lazy_barrier() {
    if (!g_job.joined) return;
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (int done = 0;;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

bool mpi_job_all(bool ok) {
    if (!g_job.joined) return ok;
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

std::vector<ClockOffset> mpi_job_clock_offsets(int exchanges) {
    if (!g_job.joined) return {ClockOffset{}};
    std::vector<ClockOffset> out;
    if (g_job.rank == 0) out.resize(size_t(g_job.size));
    for (int r = 1; r < g_job.size; ++r) {
        if (g_job.rank == 0) {
            int64_t best = std::numeric_limits<int64_t>::max();
            for (int k = 0; k < exchanges; ++k) {
                int64_t remote = 0;
                const int64_t t0 = now_ns();
                MPI_Send(&t0, 1, MPI_INT64_T, r, 0, MPI_COMM_WORLD);
                MPI_Recv(&remote, 1, MPI_INT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                const int64_t t1 = now_ns();
                if (t1 - t0 < best) {
                    best = t1 - t0;
                    // The remote read its clock somewhere inside [t0, t1]: assume the middle.
                    out[size_t(r)] = {remote - (t0 + t1) / 2, (best + 1) / 2, best};
                }
            }
        } else if (g_job.rank == r) {
            for (int k = 0; k < exchanges; ++k) {
                int64_t ping = 0;
                MPI_Recv(&ping, 1, MPI_INT64_T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                const int64_t t = now_ns();
                MPI_Send(&t, 1, MPI_INT64_T, 0, 0, MPI_COMM_WORLD);
            }
        }
    }
    return out;
}

std::vector<std::string> mpi_job_gather(const std::string& mine) {
    if (!g_job.joined) return {mine};
    const int size = g_job.size;
    int length = int(mine.size());
    std::vector<int> lengths(g_job.rank == 0 ? size_t(size) : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(lengths.size());
    std::string all;
    if (g_job.rank == 0) {
        size_t total = 0;
        for (size_t r = 0; r < lengths.size(); ++r) {
            displacements[r] = int(total);
            total += size_t(lengths[r]);
        }
        all.resize(total);
    }
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t r = 0; r < lengths.size(); ++r)
        out.push_back(all.substr(size_t(displacements[r]), size_t(lengths[r])));
    return out;
}

#else  // built without MPI: one process, rank 0 of 1

void mpi_job_begin() {
    g_job.hostname = this_hostname();
    g_job.why_not = started_by_mpirun()
                            ? "started by mpirun, but this xferlab was built without MPI "
                              "(install libopenmpi-dev and rebuild)"
                            : "this xferlab was built without MPI (install libopenmpi-dev and "
                              "rebuild), and it was not started by mpirun";
}
void mpi_job_end() {}
void mpi_job_lazy_barrier() {}
bool mpi_job_all(bool ok) { return ok; }
std::vector<ClockOffset> mpi_job_clock_offsets(int) { return {ClockOffset{}}; }
std::vector<std::string> mpi_job_gather(const std::string& mine) { return {mine}; }

#endif

}  // namespace xfer
