#pragma once
// One turn of a busy wait: the CPU's pause hint where there is one (it spares the sibling
// hyperthread and the memory order machine), nothing elsewhere. No system call: the thread stays
// runnable and on its CPU.
namespace xfer {

inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace xfer
