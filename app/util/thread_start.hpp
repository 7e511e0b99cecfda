#pragma once
// Starting a std::thread where the system may refuse one. std::thread's constructor throws
// std::system_error when no thread can start (RLIMIT_NPROC, or RLIMIT_DATA / RLIMIT_AS leaving
// no room for its stack), and a throw nobody catches aborts xferlab (SIGABRT, exit 134) with
// nothing said of the run. Here the refusal is a value the caller turns into the run's error,
// or a note where the thread only helps.
#include <exception>
#include <string>
#include <thread>
#include <utility>

namespace xfer {

// `body` running on a new thread, or an empty (not joinable) std::thread with `why` saying
// what stopped it ("Resource temporarily unavailable").
template <typename Body>
std::thread start_thread(Body&& body, std::string& why) {
    try {
        return std::thread(std::forward<Body>(body));
    } catch (const std::system_error& e) {
        why = e.code().message();
    } catch (const std::exception& e) {  // the thread's state could not be allocated
        why = e.what();
    }
    return std::thread();
}

}  // namespace xfer
