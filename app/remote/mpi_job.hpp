#pragma once
// The MPI job this process belongs to, for launcher "mpi". Started by mpirun (and built with
// MPI), xferlab joins the job: every rank runs the plan, rank 0 runs the non-mpi runs alone and
// writes the one report. Otherwise this is rank 0 of 1 and every call here is a no-op. No MPI
// header leaks out of mpi_job.cpp.
#include <cstdint>
#include <string>
#include <vector>

namespace xfer {

struct MpiJob {
    int rank = 0;
    int size = 1;
    bool joined = false;  // MPI initialized: started by mpirun in an MPI build
    std::string why_not;  // when not joined: why (for launcher mpi's "skipped" note)
    std::string hostname;
};

void mpi_job_begin();
void mpi_job_end();  // every rank, at the end: waits for the others without spinning
const MpiJob& mpi_job();

// Every rank: a barrier that sleeps (1 ms polls) instead of spinning, so that ranks idling
// while rank 0 runs a non-mpi run do not steal its CPUs.
void mpi_job_lazy_barrier();
// Every rank: true when every rank passed true.
bool mpi_job_all(bool ok);

// Offset of a rank's CLOCK_MONOTONIC from rank 0's: local time - offset = rank 0's time.
// Measured by ping-pong from rank 0; the exchange with the smallest round trip wins, and half
// of that round trip bounds the error.
struct ClockOffset {
    int64_t offset_ns = 0;
    int64_t accuracy_ns = 0;  // +- bound
    int64_t round_trip_ns = 0;
};
// Every rank calls it; rank 0 gets one entry per rank (its own is 0 +- 0), the others none.
std::vector<ClockOffset> mpi_job_clock_offsets(int exchanges = 50);

// Every rank calls it; rank 0 gets every rank's string in rank order, the others none.
std::vector<std::string> mpi_job_gather(const std::string& mine);

}  // namespace xfer
