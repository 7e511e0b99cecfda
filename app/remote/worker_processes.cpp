// Worker processes: spawned with posix_spawn (no fork of a process that may hold CUDA or Python
// state) as `xferlab worker` of this or a sibling executable, and driven over two pipes each.
// All processes share CLOCK_MONOTONIC, so records merge without conversion. A worker process
// that dies is reported with its workers and its signal or exit status; the others' records
// are kept, and a death before the start releases the others from the barrier. A worker
// process streams its records in batches while it copies (remote/record_stream.hpp): one that
// dies before its result keeps the records of the batches it sent.
#include "remote/worker_processes.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "backend/backend.hpp"
#include "embed/payload_output.hpp"
#include "embed/python.hpp"
#include "remote/local_workers.hpp"
#include "remote/record_stream.hpp"
#include "remote/worker_protocol.hpp"
#include "results/serialize.hpp"
#include "system/signal_names.hpp"
#include "system/stop_signal.hpp"
#include "util/clock.hpp"
#include "util/frame.hpp"
#include "util/units.hpp"

extern char** environ;

namespace xfer {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
// A worker process handles its own run timeout (as the in-process launchers do); the parent
// steps in only this much later, then kills what still runs after kKillGraceNs.
constexpr int64_t kParentTimeoutSlackNs = 10 * kSecond;
constexpr int64_t kKillGraceNs = 5 * kSecond;
// After a stop (SIGINT, SIGTERM, SIGHUP to xferlab), a worker process that has neither ended nor
// sent anything for this long is wedged (stopped again by its payload, stuck in its allocator
// under a memory limit): it is killed, so that the stop ends the run. A worker that is busy
// finishing (its copy, its records) keeps sending, and each message restarts its grace.
constexpr int64_t kStopGraceNs = 5 * kSecond;

struct Child {
    WorkerProcessPlan plan;
    std::string name;  // "worker 2", "workers 0, 1, 2, 3": the run's workers it runs
    pid_t pid = -1;
    int to_child = -1;    // job, go/abort
    int from_child = -1;  // ready/aborted, result
    FrameBuffer frames;
    // Its record batches, until its result replaces them (the result carries every record,
    // with device timestamps); what is kept when it dies before sending one.
    std::vector<Record> streamed;
    bool ready = false;
    bool result = false;
    bool closed = false;
    bool reaped = false;
    bool killed = false;        // by the stop's watchdog
    int64_t last_heard_ns = 0;  // its last message
    int status = 0;
};

// A pipe whose ends sit above the fds the child maps (3, 4), so that dup2 in the child never
// meets a source equal to its target (which would keep FD_CLOEXEC).
void high_pipe(int fds[2]) {
    int raw[2];
    if (::pipe2(raw, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    for (int k = 0; k < 2; ++k) {
        fds[k] = ::fcntl(raw[k], F_DUPFD_CLOEXEC, 10);
        ::close(raw[k]);
        if (fds[k] < 0) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));
    }
}

void spawn(Child& child) {
    int job[2], result[2];
    high_pipe(job);
    high_pipe(result);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, job[0], kWorkerJobFd);
    posix_spawn_file_actions_adddup2(&actions, result[1], kWorkerResultFd);
    const std::string exe = child.plan.executable.string();
    std::string arg0 = child.plan.name, arg1 = "worker";
    char* argv[] = {arg0.data(), arg1.data(), nullptr};
    // The stop signals blocked until the worker installed its stop handlers: a signal to the
    // process group while it starts then stops it like any other, instead of killing it.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    add_stop_signals(mask);
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    const int rc = posix_spawn(&child.pid, exe.c_str(), &actions, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(job[0]);
    ::close(result[1]);
    child.to_child = job[1];
    child.from_child = result[0];
    if (rc != 0) {
        child.pid = -1;
        throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
    }
}

std::string describe_exit(int status) {
    if (WIFSIGNALED(status))
        return "was killed by " + signal_name(WTERMSIG(status)) +
               (WCOREDUMP(status) ? " (core dumped)" : "");
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return "ended";
}

// What the kernel says `pid` was doing (/proc/PID/stat's state), for the message that it was
// killed: "it was stopped (SIGSTOP, or a debugger)".
std::string process_state(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    const size_t close = text.rfind(')');
    const char state =
        close != std::string::npos && close + 2 < text.size() ? text[close + 2] : '?';
    for (const auto& [code, said] :
         {std::pair{'T', "it was stopped (SIGSTOP, or a debugger)"},
          std::pair{'t', "it was stopped by a debugger"},
          std::pair{'D', "it was waiting in the kernel (uninterruptible)"},
          std::pair{'R', "it was running"}, std::pair{'S', "it was waiting"}})
        if (state == code) return said;
    return "its state unknown";
}

std::string workers_name(const std::vector<int>& workers) {
    return workers.size() == 1 ? fmt::format("worker {}", workers.front())
                               : fmt::format("workers {}", fmt::join(workers, ", "));
}

class ProcessRun {
  public:
    explicit ProcessRun(RunContext& ctx) : ctx_(ctx) {}

    void execute(const std::vector<WorkerProcessPlan>& plans) {
        children_.resize(plans.size());
        notes_.resize(plans.size());
        // Workers of this executable embed the Python this process chose (python.executable);
        // a sibling embeds its own.
        const PythonChoice python = chosen_python();
        for (size_t k = 0; k < plans.size(); ++k) {
            Child& c = children_[k];
            c.plan = plans[k];
            c.name = workers_name(c.plan.workers);
            try {
                spawn(c);
                WorkerJob job{.run = ctx_.run,
                              .workers = c.plan.workers,
                              .backend = ctx_.backend.name(),
                              .payload_dir = ctx_.payload_dir,
                              .output_log = payload_output_log(),
                              .python_executable = {},
                              .python_origin = {}};
                if (c.plan.parent_python) {
                    job.python_executable = python.executable;
                    job.python_origin = python.origin;
                }
                write_frame(c.to_child, compact_json(to_json(job)));
            } catch (const std::exception& e) {
                ctx_.errors.push_back(fmt::format("{}: cannot start its process ({}): {}", c.name,
                                                  c.plan.executable.string(), e.what()));
                abort_start();
                break;
            }
        }
        pump();
        reap();
        for (auto& note : merge_notes(notes_, "worker processes")) ctx_.notes.push_back(note);
    }

  private:
    bool barrier() const { return ctx_.run.settings.threads.start.kind != StartKind::free; }

    void send_all(const std::string& type) {
        for (Child& c : children_) {
            if (c.to_child < 0) continue;
            try {
                write_frame(c.to_child, worker_message(type));
            } catch (const std::exception&) {
                // Already gone: its end is reported when its pipe closes.
            }
        }
    }

    void abort_start() {
        if (started_ || aborted_) return;
        aborted_ = true;
        if (barrier()) send_all("abort");
    }

    void on_message(Child& c, const std::string& text) {
        if (!text.empty() && text[0] == kRecordBatchTag) {
            auto batch = records_of_batch(text);
            if (!batch) throw std::runtime_error("a record batch of a wrong length");
            c.streamed.insert(c.streamed.end(), batch->begin(), batch->end());
            return;
        }
        nlohmann::json m = nlohmann::json::parse(text);
        const std::string type = m.at("type").get<std::string>();
        if (type == "ready") {
            c.ready = true;
            if (++ready_ == int(children_.size()) && !aborted_) {
                started_ = true;
                send_all("go");
            }
        } else if (type == "aborted") {
            abort_start();
        } else if (type == "result") {
            c.result = true;
            std::vector<Record>().swap(c.streamed);
            LocalOutcome o = local_outcome_from_json(m);
            merge_payload_facts(o, ctx_);
            ctx_.remote_records.insert(ctx_.remote_records.end(), o.records.begin(),
                                       o.records.end());
            ctx_.remote_threads.insert(ctx_.remote_threads.end(), o.threads.begin(),
                                       o.threads.end());
            ctx_.remote_helper_threads.insert(ctx_.remote_helper_threads.end(),
                                              o.helper_threads.begin(), o.helper_threads.end());
            ctx_.errors.insert(ctx_.errors.end(), o.errors.begin(), o.errors.end());
            notes_[size_t(&c - children_.data())] = std::move(o.notes);
        }
    }

    void read_from(Child& c) {
        char buffer[65536];
        ssize_t got = ::read(c.from_child, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) return;
        if (got <= 0) {
            close_child(c);
            return;
        }
        c.last_heard_ns = now_ns();
        c.frames.append(buffer, size_t(got));
        try {
            while (auto frame = c.frames.next()) on_message(c, *frame);
        } catch (const std::exception& e) {
            ctx_.errors.push_back(fmt::format("{}: garbled message: {}", c.name, e.what()));
            ::kill(c.pid, SIGKILL);
            close_child(c);
        }
    }

    void close_child(Child& c) {
        ::close(c.from_child);
        c.from_child = -1;
        c.closed = true;
        // A worker that died before the start would keep the others at the barrier forever.
        if (!c.ready && !started_) abort_start();
    }

    // Forwards a stop (SIGINT/SIGTERM/SIGHUP to xferlab), kills what ignores it, and enforces
    // the parent's deadline.
    void police(int64_t now) {
        if (ctx_.stop.load() && !stop_forwarded_) {
            stop_forwarded_ = true;
            stop_forwarded_ns_ = now;
            // A worker stopped by SIGSTOP (its payload's doing) would hold the stop until its
            // timeout: it runs again to take it.
            signal_live(SIGCONT);
            signal_live(SIGINT);
        }
        if (stop_forwarded_) kill_unresponsive(now);
        if (ctx_.run.settings.timeout_ns <= 0) return;
        const int64_t term_at = start_ns_ + ctx_.run.settings.timeout_ns + kParentTimeoutSlackNs;
        if (now >= term_at && !term_sent_) {
            term_sent_ = true;
            ctx_.errors.push_back(fmt::format(
                "worker processes still running {} after the run's timeout ({}): stopped",
                format_duration_ns(double(kParentTimeoutSlackNs)),
                format_duration_ns(double(ctx_.run.settings.timeout_ns))));
            signal_live(SIGTERM);
        }
        if (now >= term_at + kKillGraceNs && !kill_sent_) {
            kill_sent_ = true;
            signal_live(SIGKILL);
        }
    }

    // Every worker process not yet ended (a closed pipe is no end: one that closed it may still
    // be wedged).
    void signal_live(int sig) {
        for (Child& c : children_)
            if (c.pid > 0 && !c.reaped) ::kill(c.pid, sig);
    }

    // The stop's watchdog: a worker process silent for kStopGraceNs since the stop (or since
    // its last message) is killed, and the run's errors say what it was doing.
    void kill_unresponsive(int64_t now) {
        for (Child& c : children_) {
            if (c.pid <= 0 || c.reaped || c.killed) continue;
            if (now - std::max(stop_forwarded_ns_, c.last_heard_ns) < kStopGraceNs) continue;
            c.killed = true;
            ctx_.errors.push_back(fmt::format(
                "{} (process {}) did not stop within {} of the stop ({}): xferlab killed it "
                "(SIGKILL)",
                c.name, c.pid, duration_text(kStopGraceNs), process_state(c.pid)));
            ::kill(c.pid, SIGKILL);
        }
    }

    // Reads every worker's messages and waits for every worker process to end, policing both.
    void pump() {
        start_ns_ = now_ns();
        for (;;) {
            std::vector<pollfd> fds;
            std::vector<Child*> owners;
            for (Child& c : children_) {
                if (c.from_child < 0) continue;
                fds.push_back({c.from_child, POLLIN, 0});
                owners.push_back(&c);
            }
            if (fds.empty() && try_reap_all()) return;
            int rc = ::poll(fds.data(), fds.size(), 100);
            police(now_ns());
            if (rc <= 0) continue;
            for (size_t k = 0; k < fds.size(); ++k)
                if (fds[k].revents) read_from(*owners[k]);
        }
    }

    // Whether every worker process has ended (each reaped here, without waiting).
    bool try_reap_all() {
        bool all = true;
        for (Child& c : children_) {
            if (c.pid <= 0 || c.reaped) continue;
            const pid_t got = ::waitpid(c.pid, &c.status, WNOHANG);
            if (got == c.pid || (got < 0 && errno != EINTR)) c.reaped = true;
            all &= c.reaped;
        }
        return all;
    }

    void reap() {
        for (Child& c : children_) {
            if (c.to_child >= 0) ::close(c.to_child);
            if (c.from_child >= 0) ::close(c.from_child);
            if (c.pid <= 0) continue;
            while (!c.reaped && ::waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
            }
            const bool clean = WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0;
            if (c.result && clean) continue;
            ctx_.errors.push_back(fmt::format("{} (process {}) {}{}", c.name, c.pid,
                                              describe_exit(c.status),
                                              records_fate(c, children_.size() > 1)));
            keep_streamed(c);
        }
    }

    // What became of the records of a worker process that did not end cleanly. `others`:
    // other worker processes took part (a lone one holds every worker of the run).
    static std::string records_fate(const Child& c, bool others) {
        if (c.result) return " after reporting its records";
        const std::string kept = others ? "; the other workers' records are kept" : "";
        if (c.streamed.empty()) return " before reporting its records: they are lost" + kept;
        return fmt::format(
            " before reporting all its records: the {} it sent during the run {} kept, the "
            "copies after its last batch are lost{}",
            c.streamed.size(), c.streamed.size() == 1 ? "is" : "are", kept);
    }

    void keep_streamed(Child& c) {
        if (c.result) return;
        ctx_.remote_records.insert(ctx_.remote_records.end(), c.streamed.begin(), c.streamed.end());
        std::vector<Record>().swap(c.streamed);
    }

    RunContext& ctx_;
    std::vector<Child> children_;
    std::vector<std::vector<std::string>> notes_;  // per worker process
    int ready_ = 0;
    bool started_ = false;
    bool aborted_ = false;
    bool stop_forwarded_ = false;
    int64_t stop_forwarded_ns_ = 0;
    bool term_sent_ = false;
    bool kill_sent_ = false;
    int64_t start_ns_ = 0;
};

}  // namespace

void run_worker_processes(RunContext& ctx, const std::vector<WorkerProcessPlan>& plans) {
    // A worker that dies must not take xferlab down with a SIGPIPE when it is written to.
    std::signal(SIGPIPE, SIG_IGN);
    ProcessRun(ctx).execute(plans);
}

const char* how_records_came_back(const RunContext& ctx) {
    return ctx.remote_records.empty() ? "no records came back"
                                      : "records merged on the shared CLOCK_MONOTONIC";
}

}  // namespace xfer
