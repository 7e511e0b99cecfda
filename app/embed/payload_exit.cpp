#include "embed/payload_exit.hpp"

#include <unistd.h>

#include <mutex>

#include "embed/python.hpp"

namespace xfer {
namespace {

std::mutex g_exit_mutex;
std::function<void(int)> g_handler;
pid_t g_owner_pid = 0;  // the process that set the handler; a forked child is not it

}  // namespace

void set_payload_exit_handler(std::function<void(int)> handler) {
    std::lock_guard lock(g_exit_mutex);
    g_handler = std::move(handler);
    g_owner_pid = ::getpid();
}

void payload_exit(int code) {
    std::function<void(int)> handler;
    {
        std::lock_guard lock(g_exit_mutex);
        if (::getpid() == g_owner_pid) handler = g_handler;
    }
    if (handler) handler(code);  // expected not to return
    ::_exit(code);
}

}  // namespace xfer
