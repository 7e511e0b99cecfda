#pragma once
// The enums of the scenario keys, each with its one table of names (settings/enum_table.hpp).
// A value is added to its enum and, below it, as one row of its table: parsing, messages, help,
// completion, results.json and the worker wire follow from the row.
#include "settings/enum_table.hpp"

namespace xfer {

// transfer.direction.
enum class Direction { h2d, d2h, d2d, h2h, p2p };
template <>
struct EnumTable<Direction> {
    static constexpr EnumRow<Direction> rows[] = {{Direction::h2d, "h2d"},
                                                  {Direction::d2h, "d2h"},
                                                  {Direction::d2d, "d2d"},
                                                  {Direction::h2h, "h2h"},
                                                  {Direction::p2p, "p2p"}};
};

// transfer.host_memory (numa: on node numa_node, HostMemory).
enum class HostMemoryKind { pageable, hugepage, pinned, registered, write_combined, numa };
template <>
struct EnumTable<HostMemoryKind> {
    static constexpr EnumRow<HostMemoryKind> rows[] = {
        {HostMemoryKind::pageable, "pageable"},
        {HostMemoryKind::hugepage, "hugepage"},
        {HostMemoryKind::pinned, "pinned"},
        {HostMemoryKind::registered, "registered"},
        {HostMemoryKind::write_combined, "write-combined"},
        {HostMemoryKind::numa, "numa", "<node>"}};
};

// transfer.first_touch: which thread writes the host buffers first.
enum class FirstTouch { worker, main, none };
template <>
struct EnumTable<FirstTouch> {
    static constexpr EnumRow<FirstTouch> rows[] = {
        {FirstTouch::worker, "worker"}, {FirstTouch::main, "main"}, {FirstTouch::none, "none"}};
};

// transfer.api.
enum class CopyApi { sync, async };
template <>
struct EnumTable<CopyApi> {
    static constexpr EnumRow<CopyApi> rows[] = {{CopyApi::sync, "sync"}, {CopyApi::async, "async"}};
};

// transfer.stream.
enum class StreamKind { legacy, per_thread, non_blocking };
template <>
struct EnumTable<StreamKind> {
    static constexpr EnumRow<StreamKind> rows[] = {{StreamKind::legacy, "legacy"},
                                                   {StreamKind::per_thread, "per-thread"},
                                                   {StreamKind::non_blocking, "non-blocking"}};
};

// transfer.timing: where device times come from.
enum class TimingMode { auto_, host, events, cupti };
template <>
struct EnumTable<TimingMode> {
    static constexpr EnumRow<TimingMode> rows[] = {{TimingMode::auto_, "auto"},
                                                   {TimingMode::host, "host"},
                                                   {TimingMode::events, "events"},
                                                   {TimingMode::cupti, "cupti"}};
};

// transfer.context: CUDA context of a worker's copies: the device's primary context (shared by
// the process's threads) or one the worker creates for itself (driver API).
enum class ContextKind { primary, per_worker };
template <>
struct EnumTable<ContextKind> {
    static constexpr EnumRow<ContextKind> rows[] = {{ContextKind::primary, "primary"},
                                                    {ContextKind::per_worker, "per-worker"}};
};

// transfer.path: how the bytes of an h2d/d2h copy move (CUDA backend): the driver's own path;
// xferlab's staging engine (pageable <-> page-locked chunks on helper threads, overlapped with
// the DMA); or the worker's buffer registered (cudaHostRegister) once before the timed copies.
enum class CopyPath { driver, staged, register_ };
template <>
struct EnumTable<CopyPath> {
    static constexpr EnumRow<CopyPath> rows[] = {{CopyPath::driver, "driver"},
                                                 {CopyPath::staged, "staged"},
                                                 {CopyPath::register_, "register"}};
};

// staging.affinity: the helpers on the device's local CPUs, wherever the scheduler puts them,
// or on the CPUs of a list.
enum class StagingAffinity { gpu_local, none, list };
template <>
struct EnumTable<StagingAffinity> {
    static constexpr EnumRow<StagingAffinity> rows[] = {
        {StagingAffinity::gpu_local, "gpu-local"},
        {StagingAffinity::none, "none"},
        {.value = StagingAffinity::list, .name = {}, .argument = {}, .array = true}};
};

// staging.streams: which CUDA streams carry the staging helpers' DMAs: one per helper (chunks of
// different helpers share the copy engine and finish together), or one per engine (chunks
// finish in the order they were started).
enum class StagingStreams { per_helper, one };
template <>
struct EnumTable<StagingStreams> {
    static constexpr EnumRow<StagingStreams> rows[] = {{StagingStreams::per_helper, "per-helper"},
                                                       {StagingStreams::one, "one"}};
};

// staging.wait: how a staging helper waits for its DMA: spinning in cudaEventSynchronize (the
// runtime's default with few contexts; the helper keeps its CPU) or blocking
// (cudaEventBlockingSync: it sleeps and leaves the CPU to the other helpers' copies).
enum class StagingWait { spin, block };
template <>
struct EnumTable<StagingWait> {
    static constexpr EnumRow<StagingWait> rows[] = {{StagingWait::spin, "spin"},
                                                    {StagingWait::block, "block"}};
};

// staging.mapped_files: how a copy to the device takes its bytes where its source is a shared
// mapping of a regular file (numpy.memmap, mmap.mmap): read from the file into the page-locked
// buffers (pread: the page cache's bytes, no page of the mapping faulted in), or copied from the
// mapping like any memory (each page's first touch faults it in inside the copy).
enum class StagingMappedFiles { copy, read };
template <>
struct EnumTable<StagingMappedFiles> {
    static constexpr EnumRow<StagingMappedFiles> rows[] = {{StagingMappedFiles::copy, "copy"},
                                                           {StagingMappedFiles::read, "read"}};
};

// staging.start: who fills a staged copy's first DMA buffer (shared buffers, staging.dma): the
// calling thread, which is running already, together with the helpers it wakes (a helper starts
// the DMA), or the helpers alone while the caller sleeps from the start (each woken helper's
// first piece waits for its wake-up).
enum class StagingStart { caller, helpers };
template <>
struct EnumTable<StagingStart> {
    static constexpr EnumRow<StagingStart> rows[] = {{StagingStart::caller, "caller"},
                                                     {StagingStart::helpers, "helpers"}};
};

// Engine(wake=...): when a staged copy's sleeping helpers are woken: as the module's call enters
// (where the engine's latest copy was staged: StagingEngine::expect_copy) or when the copy
// reaches the engine.
enum class StagingWake { call, arrival };
template <>
struct EnumTable<StagingWake> {
    static constexpr EnumRow<StagingWake> rows[] = {{StagingWake::call, "call"},
                                                    {StagingWake::arrival, "arrival"}};
};

// staging.lock: how a thread that finds the engine's lock taken waits for it: keeps trying a
// moment first (spin), or sleeps at once (block: a plain std::mutex, as before).
enum class StagingLock { spin, block };
template <>
struct EnumTable<StagingLock> {
    static constexpr EnumRow<StagingLock> rows[] = {{StagingLock::spin, "spin"},
                                                    {StagingLock::block, "block"}};
};

// Engine(pageable=...): how pageable memory reaches the device: auto (directly where the device
// reads pageable memory through the host's page tables, staged elsewhere), always staged, or
// always one plain copy.
enum class PageableRoute { auto_, staged, direct };
template <>
struct EnumTable<PageableRoute> {
    static constexpr EnumRow<PageableRoute> rows[] = {{PageableRoute::auto_, "auto"},
                                                      {PageableRoute::staged, "staged"},
                                                      {PageableRoute::direct, "direct"}};
};

// threads.start (staggered: worker i starts i times the argument after the barrier).
enum class StartKind { barrier, free, staggered };
template <>
struct EnumTable<StartKind> {
    static constexpr EnumRow<StartKind> rows[] = {
        {StartKind::barrier, "barrier"},
        {StartKind::free, "free"},
        {StartKind::staggered, "staggered", "<duration>"}};
};

// threads.signal_mask (list: the signals an array names).
enum class SignalMaskKind { inherit, block_all, unblock_all, list };
template <>
struct EnumTable<SignalMaskKind> {
    static constexpr EnumRow<SignalMaskKind> rows[] = {
        {SignalMaskKind::inherit, "inherit"},
        {SignalMaskKind::block_all, "block-all"},
        {SignalMaskKind::unblock_all, "unblock-all"},
        {.value = SignalMaskKind::list, .name = {}, .argument = {}, .array = true}};
};

// threads.affinity (list: the CPUs an array names).
enum class AffinityKind { none, compact, scatter, gpu_local, list };
template <>
struct EnumTable<AffinityKind> {
    static constexpr EnumRow<AffinityKind> rows[] = {
        {AffinityKind::none, "none"},
        {AffinityKind::compact, "compact"},
        {AffinityKind::scatter, "scatter"},
        {AffinityKind::gpu_local, "gpu-local"},
        {.value = AffinityKind::list, .name = {}, .argument = {}, .array = true}};
};

// threads.policy (fifo and rr with their priority).
enum class SchedPolicy { other, batch, idle, fifo, rr };
template <>
struct EnumTable<SchedPolicy> {
    static constexpr EnumRow<SchedPolicy> rows[] = {{SchedPolicy::other, "other"},
                                                    {SchedPolicy::batch, "batch"},
                                                    {SchedPolicy::idle, "idle"},
                                                    {SchedPolicy::fifo, "fifo", "<prio>"},
                                                    {SchedPolicy::rr, "rr", "<prio>"}};
};

// threads.between: what a worker does between two copies.
enum class BetweenKind { none, yield, sleep, spin };
template <>
struct EnumTable<BetweenKind> {
    static constexpr EnumRow<BetweenKind> rows[] = {{BetweenKind::none, "none"},
                                                    {BetweenKind::yield, "yield"},
                                                    {BetweenKind::sleep, "sleep", "<duration>"},
                                                    {BetweenKind::spin, "spin", "<duration>"}};
};

// run.gil: whether a Python thread releases the GIL around its copies.
enum class GilPolicy { release, hold };
template <>
struct EnumTable<GilPolicy> {
    static constexpr EnumRow<GilPolicy> rows[] = {{GilPolicy::release, "release"},
                                                  {GilPolicy::hold, "hold"}};
};

// run.mimic: host threads as xferlab makes them, or with a Python thread's attributes.
enum class Mimic { none, python };
template <>
struct EnumTable<Mimic> {
    static constexpr EnumRow<Mimic> rows[] = {{Mimic::none, ""}, {Mimic::python, "python"}};
};

// scenario.order: how the trials of the plan's runs follow each other.
enum class TrialOrder { interleaved, shuffled, grouped };
template <>
struct EnumTable<TrialOrder> {
    static constexpr EnumRow<TrialOrder> rows[] = {{TrialOrder::interleaved, "interleaved"},
                                                   {TrialOrder::shuffled, "shuffled"},
                                                   {TrialOrder::grouped, "grouped"}};
};

}  // namespace xfer
