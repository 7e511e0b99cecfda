#include "engine/timed_block_hooks.hpp"

#include <atomic>

namespace xfer {

namespace {
std::atomic<uint32_t (*)()> g_open_tag{nullptr};
std::atomic<void (*)(const std::vector<CorrelationAlias>&)> g_join{nullptr};
std::atomic<uint32_t (*)()> g_correlation{nullptr};
}  // namespace

void set_timed_block_hooks(const TimedBlockHooks& hooks) {
    g_join.store(hooks.join);
    g_correlation.store(hooks.correlation);
    g_open_tag.store(hooks.open_tag);
}

TimedBlockHooks timed_block_hooks() {
    return {g_open_tag.load(), g_join.load(), g_correlation.load()};
}

}  // namespace xfer
