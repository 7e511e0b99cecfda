// Every class of scenario error names file:line:column, the dotted key, what was expected and
// the allowed values; all errors of a file come back together.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "support/catch.hpp"
#include "support/scenario_errors.hpp"
#include "support/text.hpp"

using xfer::test::contains;

using namespace xfer;

using xfer::test::errors_of;

namespace {

// The only error of `text`, checked for position and key; its message is returned.
std::string only_error(const std::string& text, int line, int column, const std::string& key,
                       const std::vector<std::string>& sets = {}) {
    const auto errors = errors_of(text, sets);
    INFO(text);
    REQUIRE(errors.size() == 1);
    INFO(format_diagnostic(errors[0]));
    CHECK(errors[0].line == line);
    CHECK(errors[0].column == column);
    CHECK(errors[0].key == key);
    CHECK(errors[0].file == (sets.empty() ? "bad.toml" : "--set"));
    return errors[0].message;
}

}  // namespace

TEST_CASE("a TOML syntax error is reported alone with its position", "[errors]") {
    const auto errors = errors_of(R"([transfer]
bytes = "1MiB"
direction = h2d
[[run]]
)");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].file == "bad.toml");
    CHECK(errors[0].line == 3);
    CHECK(errors[0].column == 13);
    CHECK(errors[0].key.empty());
    CHECK_FALSE(errors[0].message.empty());
}

TEST_CASE("an unknown key points at the key with a did-you-mean and the known keys", "[errors]") {
    const std::string msg = only_error(R"([transfer]
bytes = "1MiB"
  repetitons = 3
[[run]]
)",
                                       3, 3, "transfer.repetitons");
    CHECK(contains(msg, "unknown key 'repetitons' (did you mean 'repetitions'?)"));
    CHECK(contains(msg, "keys of [transfer] are direction, bytes,"));
}

TEST_CASE("a run's params must be a table, said at the key", "[errors]") {
    const std::string msg = only_error(R"([[run]]
launcher = "python"
payload = "threads.py"
params = 5
)",
                                       4, 10, "run[1].params");
    CHECK(contains(msg,
                   "expected payload parameters for this run, merged over [params] (a "
                   "table: params.<key> = value, or params = { <key> = value }); got an "
                   "integer (5)"));
}

TEST_CASE("an unknown table gets a did-you-mean", "[errors]") {
    const std::string msg = only_error(R"([[run]]
[thread]
count = 2
)",
                                       2, 2, "thread");
    CHECK(contains(msg, "(did you mean 'threads'?)"));
    CHECK(contains(msg, "scenario, transfer, threads, staging, params, run, sweep"));
}

TEST_CASE("a setting outside its table is pointed to its table", "[errors]") {
    CHECK(contains(only_error("count = 4\n[[run]]\n", 1, 1, "count"),
                   "(did you mean 'threads.count'? put it under [threads])"));
    CHECK(contains(only_error("[transfer]\ncount = 4\n[[run]]\n", 2, 1, "transfer.count"),
                   "did you mean 'threads.count'?"));
    CHECK(contains(only_error("[[run]]\nstack_size = \"1MiB\"\n", 2, 1, "run[1].stack_size"),
                   "did you mean 'threads.stack_size'? a run overrides it as threads.stack_size"));
}

TEST_CASE("a wrong type names what was expected and what was given", "[errors]") {
    CHECK(contains(
        only_error("[threads]\ncount = \"4\"\n[[run]]\n", 2, 9, "threads.count"),
        "expected an integer from 1 to 4096 (more than 4096 threads is a typo); got \"4\""));
    CHECK(contains(only_error("[transfer]\nverify = \"yes\"\n[[run]]\n", 2, 10, "transfer.verify"),
                   "expected true or false; got \"yes\""));
    CHECK(contains(
        only_error("[transfer]\nrepetitions = 2.0\n[[run]]\n", 2, 15, "transfer.repetitions"),
        "got a float (2.0)"));
    CHECK(contains(only_error("transfer = 5\n[[run]]\n", 1, 12, "transfer"),
                   "expected a table [transfer]; got an integer (5)"));
}

TEST_CASE("a bad choice lists the allowed values and suggests the closest", "[errors]") {
    const std::string msg =
        only_error("[transfer]\nhost_memory = \"pinnd\"\n[[run]]\n", 2, 15, "transfer.host_memory");
    CHECK(contains(msg,
                   "expected one of \"pageable\", \"hugepage\", \"pinned\", \"registered\", "
                   "\"write-combined\" or \"numa:<node>\"; got \"pinnd\" (did you mean "
                   "'pinned'?)"));
    CHECK(contains(only_error("[threads]\nstart = \"stagger\"\n[[run]]\n", 2, 9, "threads.start"),
                   "(did you mean 'staggered:<duration>'?)"));
    CHECK(
        contains(only_error("[threads]\npolicy = \"fifo:100\"\n[[run]]\n", 2, 10, "threads.policy"),
                 "priority from 1 to 99"));
    CHECK(
        contains(only_error("[scenario]\nbackend = \"gpu\"\n[[run]]\n", 2, 11, "scenario.backend"),
                 "expected one of \"auto\", \"host\" or \"cuda\""));
    CHECK(contains(only_error("[[run]]\nlauncher = \"pyhton\"\n", 2, 12, "run[1].launcher"),
                   "(did you mean 'python'?)"));
}

TEST_CASE("bad sizes and durations say why", "[errors]") {
    CHECK(contains(only_error("[transfer]\nbytes = \"64M\"\n[[run]]\n", 2, 9, "transfer.bytes"),
                   "unknown size unit 'M'"));
    CHECK(contains(
        only_error("[threads]\nbetween = \"sleep:5\"\n[[run]]\n", 2, 11, "threads.between"),
        "sleep:<duration> needs a duration such as \"100us\"; got \"sleep:5\": a duration "
        "needs a unit"));
    CHECK(contains(
        only_error("[threads]\nbetween = \"spin:-1us\"\n[[run]]\n", 2, 11, "threads.between"),
        "spin:<duration> needs a duration such as \"100us\""));
    CHECK(contains(only_error("[threads]\nbetween = \"spin\"\n[[run]]\n", 2, 11, "threads.between"),
                   "\"spin:<duration>\""));
    CHECK(contains(only_error("[scenario]\ntimeout = 30\n[[run]]\n", 2, 11, "scenario.timeout"),
                   "expected a duration such as \"30s\""));
}

TEST_CASE("sanity limits are refused with the reason", "[errors]") {
    CHECK(contains(only_error("[transfer]\nbytes = 0\n[[run]]\n", 2, 9, "transfer.bytes"),
                   "a copy must move at least 1 byte"));
    CHECK(contains(only_error("[transfer]\nbytes = \"0 MiB\"\n[[run]]\n", 2, 9, "transfer.bytes"),
                   "at least 1 byte"));
    CHECK(contains(
        only_error("[transfer]\nrepetitions = 0\n[[run]]\n", 2, 15, "transfer.repetitions"),
        "expected an integer >= 1 (each run copies at least once); got an integer (0)"));
    CHECK(contains(only_error("[threads]\ncount = 4097\n[[run]]\n", 2, 9, "threads.count"),
                   "from 1 to 4096"));
    CHECK(contains(
        only_error("[threads]\nstack_size = \"8KiB\"\n[[run]]\n", 2, 14, "threads.stack_size"),
        "below the 16 KiB a thread needs"));
    CHECK(errors_of("[threads]\ncount = 4096\nstack_size = \"16KiB\"\n[[run]]\n").empty());
}

TEST_CASE("a bad element of an array points at that element", "[errors]") {
    CHECK(contains(only_error("[threads]\nsignal_mask = [\"SIGINT\", \"SIGINTT\"]\n[[run]]\n", 2,
                              26, "threads.signal_mask"),
                   "unknown signal \"SIGINTT\" (did you mean 'SIGINT'?)"));
    CHECK(contains(only_error("[threads]\nsignal_mask = [\"SIGKILL\"]\n[[run]]\n", 2, 16,
                              "threads.signal_mask"),
                   "SIGKILL cannot be blocked"));
    CHECK(contains(only_error("[threads]\nsignal_mask = [\"INT\", \"kill\"]\n[[run]]\n", 2, 23,
                              "threads.signal_mask"),
                   "SIGKILL cannot be blocked"));
    CHECK(contains(
        only_error("[threads]\nsignal_mask = [\"SIG32\"]\n[[run]]\n", 2, 16, "threads.signal_mask"),
        "reserved by the C library"));
    CHECK(contains(
        only_error("[threads]\naffinity = [0, 1, -2]\n[[run]]\n", 2, 19, "threads.affinity"),
        "element 3 is an integer (-2)"));
    CHECK(contains(only_error("[transfer]\ndevices = []\n[[run]]\n", 2, 11, "transfer.devices"),
                   "an empty list selects nothing"));
}

TEST_CASE("run table errors: launcher, payload, gil and mimic", "[errors]") {
    CHECK(contains(only_error("[[run]]\nlauncher = \"python\"\n", 2, 12, "run[1].payload"),
                   "launcher \"python\" needs payload = \"<file>.py\""));
    CHECK(contains(only_error("[[run]]\nlauncher = \"python\"\npayload = \"threads\"\n", 3, 11,
                              "run[1].payload"),
                   "expected a Python file name"));
    CHECK(contains(only_error("[[run]]\nlauncher = \"host\"\npayload = \"threads.py\"\n", 3, 11,
                              "run[1].payload"),
                   "launcher \"host\" runs no payload"));
    CHECK(contains(
        only_error("[[run]]\n[[run]]\nlauncher = \"openmp\"\ngil = \"hold\"\n", 4, 7, "run[2].gil"),
        "launcher \"openmp\" never touches the GIL"));
    CHECK(
        contains(only_error("[[run]]\nlauncher = \"python\"\npayload = \"a.py\"\ngil = \"drop\"\n",
                            4, 7, "run[1].gil"),
                 "expected one of \"release\" or \"hold\""));
    CHECK(contains(
        only_error("[[run]]\nlauncher = \"openmp\"\nmimic = \"python\"\n", 3, 9, "run[1].mimic"),
        "mimic is for launchers \"host\" and \"host+gil\""));
    CHECK(contains(only_error("[[run]]\nmimic = \"pyton\"\n", 2, 9, "run[1].mimic"),
                   "(did you mean 'python'?)"));
    CHECK(contains(only_error("[[run]]\nthreads.count = 0\n", 2, 17, "run[1].threads.count"),
                   "from 1 to 4096"));
    CHECK(contains(only_error("[[run]]\nthreads.cont = 2\n", 2, 9, "run[1].threads.cont"),
                   "did you mean 'count'?"));
    CHECK(contains(only_error("[run]\nlauncher = \"host\"\n", 1, 1, "run"),
                   "write [[run]], not [run]"));
    CHECK(contains(
        only_error("[[run]]\nlauncher = \"openmp\"\nparams = { a = 1 }\n", 3, 10, "run[1].params"),
        "launcher \"openmp\" runs no payload to read them; params are for launchers "
        "\"python\", \"process\", \"mpi\", \"python-ft\" and \"python-subinterp\""));
}

TEST_CASE("two [[run]]s with one label: an error at the second", "[errors]") {
    const std::string message = only_error(R"([[run]]
label = "fast"
[[run]]
launcher = "openmp"
label = "slow"
[[run]]
launcher = "openmp"
label = "fast"
)",
                                           8, 9, "run[3].label");
    CHECK(message ==
          "\"fast\" is already the label of run[1]: each [[run]] needs its own label (or none, "
          "for one derived from its settings)");
}

TEST_CASE("a file without [[run]] says how to add one", "[errors]") {
    const auto errors = errors_of("[transfer]\nbytes = \"1MiB\"\n");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].key == "run");
    CHECK(errors[0].line == 0);
    CHECK(format_diagnostic(errors[0]) ==
          "bad.toml: error: run: no [[run]] table: add at least one, e.g. [[run]] launcher = "
          "\"host\"");
}

TEST_CASE("sweep table errors", "[errors][sweep]") {
    CHECK(contains(
        only_error("[[run]]\n[sweep]\n\"threads.count\" = 4\n", 3, 19, "sweep.threads.count"),
        "expected an array of values to sweep"));
    CHECK(contains(
        only_error("[[run]]\n[sweep]\n\"threads.count\" = []\n", 3, 19, "sweep.threads.count"),
        "an empty sweep runs nothing"));
    CHECK(contains(only_error("[[run]]\n[sweep]\n\"threads.count\" = [1, 0, 2]\n", 3, 23,
                              "sweep.threads.count"),
                   "from 1 to 4096"));
    CHECK(contains(
        only_error("[[run]]\n[sweep]\n\"threads.cuont\" = [1]\n", 3, 1, "sweep.threads.cuont"),
        "(did you mean 'threads.count'?)"));
    CHECK(contains(only_error("[[run]]\n[sweep]\nthreads.count = [1]\n\"threads.count\" = [2]\n", 4,
                              1, "sweep.threads.count"),
                   "swept twice"));
    CHECK(contains(only_error("[[run]]\n[sweep]\n\"params..a\" = [1]\n", 3, 1, "sweep.params..a"),
                   "empty part in params key '.a'"));
    CHECK(contains(only_error("[[run]]\n[sweep]\nparams.a = 1\n", 3, 12, "sweep.params.a"),
                   "expected an array of values to sweep"));
    CHECK(contains(only_error("[[run]]\n[sweep]\nparams.a = [1]\n\"params.a\" = [2]\n", 4, 1,
                              "sweep.params.a"),
                   "swept twice"));
}

TEST_CASE("a sweep past 10000 runs is refused with its size", "[errors][sweep]") {
    std::string text = "[[run]]\n[[run]]\n[sweep]\n\"threads.count\" = [";
    for (int i = 1; i <= 100; ++i) text += std::to_string(i) + (i < 100 ? ", " : "]\n");
    text += "\"transfer.repetitions\" = [";
    for (int i = 1; i <= 51; ++i) text += std::to_string(i) + (i < 51 ? ", " : "]\n");
    const std::string msg = only_error(text, 3, 1, "sweep");
    CHECK(contains(msg,
                   "the plan would have 10200 runs (5100 sweep points x 2 [[run]] tables); "
                   "the limit is 10000"));
}

TEST_CASE("three planted errors in one file are all reported, in file order", "[errors]") {
    const auto errors = errors_of(R"([scenario]
name = "three-errors"

[transfer]
bytes = "2 GiBs"

[threads]
count = 4
stak_size = "256KiB"

[[run]]
launcher = "python"
payload = "threads.py"
gil = "relase"
)");
    REQUIRE(errors.size() == 3);
    CHECK(format_diagnostic(errors[0]).rfind("bad.toml:5:9: error: transfer.bytes: ", 0) == 0);
    CHECK(contains(errors[0].message, "unknown size unit 'GiBs' (did you mean 'GiB'?)"));
    CHECK(format_diagnostic(errors[1]).rfind("bad.toml:9:1: error: threads.stak_size: ", 0) == 0);
    CHECK(contains(errors[1].message, "did you mean 'stack_size'?"));
    CHECK(format_diagnostic(errors[2]).rfind("bad.toml:14:7: error: run[1].gil: ", 0) == 0);
    CHECK(contains(errors[2].message, "did you mean 'release'?"));
}

TEST_CASE("set flags: --set errors name --set, the flag's position and the value's column",
          "[errors][set]") {
    CHECK(contains(only_error("[[run]]\n", 1, 15, "threads.count", {"threads.count=x"}),
                   "expected an integer from 1 to 4096"));
    // Line 2: the second flag. Column 17: the value after "transfer.bytes=" and a blank.
    CHECK(contains(only_error("[[run]]\n", 2, 17, "transfer.bytes",
                              {"threads.count=2", "transfer.bytes= 1.3B"}),
                   "not a whole number of bytes"));
    CHECK(contains(only_error("[[run]]\n", 1, 1, "threads.cont", {"threads.cont=3"}),
                   "unknown key 'threads.cont' (did you mean 'threads.count'?)"));
    CHECK(contains(only_error("[[run]]\n", 1, 1, "", {"threads.count"}), "expected key=value"));
    CHECK(contains(only_error("[[run]]\n", 1, 18, "scenario.backend", {"scenario.backend=gpu"}),
                   "expected one of \"auto\", \"host\" or \"cuda\""));
    CHECK(contains(only_error("[[run]]\n", 2, 1, "params.a.b", {"params.a=1", "params.a.b=2"}),
                   "is not a table"));
}

TEST_CASE("file and --set errors come back together", "[errors][set]") {
    const auto errors = errors_of("[threads]\ncount = 0\n[[run]]\n", {"transfer.bytes=0"});
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].file == "bad.toml");
    CHECK(errors[0].line == 2);
    CHECK(errors[1].file == "--set");
    CHECK(errors[1].key == "transfer.bytes");
}

TEST_CASE("[staging] keys: zero threads, tiny chunks and unknown values are refused", "[errors]") {
    CHECK(contains(only_error("[staging]\nthreads = 0\n[[run]]\n", 2, 11, "staging.threads"),
                   "expected an integer from 1 to 256 (or \"auto\"; zero helper threads would "
                   "move nothing); got an integer (0)"));
    CHECK(contains(only_error("[staging]\nthreads = \"many\"\n[[run]]\n", 2, 11, "staging.threads"),
                   "expected \"auto\"; got \"many\""));
    CHECK(contains(only_error("[staging]\nchunk = \"1KiB\"\n[[run]]\n", 2, 9, "staging.chunk"),
                   "a staging chunk must be at least 4 KiB"));
    CHECK(contains(only_error("[staging]\nbuffers = 0\n[[run]]\n", 2, 11, "staging.buffers"),
                   "from 1 to 64"));
    CHECK(
        contains(only_error("[staging]\naffinity = \"gpu\"\n[[run]]\n", 2, 12, "staging.affinity"),
                 "did you mean 'gpu-local'?"));
    CHECK(contains(
        only_error("[staging]\nstreams = \"per_helper\"\n[[run]]\n", 2, 11, "staging.streams"),
        "expected one of \"per-helper\" or \"one\"; got \"per_helper\" (did you "
        "mean 'per-helper'?)"));
    CHECK(contains(only_error("[staging]\nwait = true\n[[run]]\n", 2, 8, "staging.wait"),
                   "expected one of \"spin\" or \"block\"; got a boolean (true)"));
    CHECK(contains(only_error("[staging]\nstreams = \"two\"\n[[run]]\n", 2, 11, "staging.streams"),
                   "expected one of \"per-helper\" or \"one\"; got \"two\""));
    CHECK(contains(only_error("[staging]\nwait = \"sleep\"\n[[run]]\n", 2, 8, "staging.wait"),
                   "expected one of \"spin\" or \"block\"; got \"sleep\""));
    CHECK(contains(only_error("[staging]\ndma = \"2KiB\"\n[[run]]\n", 2, 7, "staging.dma"),
                   "a DMA must be at least 4 KiB"));
    CHECK(contains(only_error("[staging]\ndma = \"big\"\n[[run]]\n", 2, 7, "staging.dma"),
                   "a size such as \"8MiB\" or \"auto\" or \"chunk\""));
    CHECK(
        errors_of(
            "[[run]]\nstaging.dma = \"16MiB\"\n[sweep]\n\"staging.dma\" = [\"chunk\", \"8MiB\"]\n")
            .empty());
    CHECK(contains(only_error("[transfer]\npath = \"stage\"\n[[run]]\n", 2, 8, "transfer.path"),
                   "expected one of \"driver\", \"staged\" or \"register\"; got \"stage\""));
    // A run overrides them like [transfer] keys, and a sweep varies them.
    CHECK(errors_of("[staging]\nthreads = 4\nchunk = \"auto\"\n[[run]]\nstaging.chunk = \"1MiB\"\n"
                    "[sweep]\n\"staging.threads\" = [1, 2]\n")
              .empty());
    CHECK(errors_of("[[run]]\nstaging.wait = \"spin\"\n"
                    "[sweep]\n\"staging.wait\" = [\"spin\", \"block\"]\n")
              .empty());
    CHECK(errors_of("[[run]]\nstaging.buffers = \"auto\"\n[sweep]\n\"staging.dma\" = [\"auto\", "
                    "\"chunk\"]\n")
              .empty());
    CHECK(errors_of("[[run]]\nstaging.streams = \"one\"\n"
                    "[sweep]\n\"staging.streams\" = [\"per-helper\", \"one\"]\n")
              .empty());
}

TEST_CASE("a retired [staging] key is refused with what happened to it, wherever it is named",
          "[errors]") {
    const std::string why = "staging.taper was retired in issue #45";
    CHECK(contains(only_error("[staging]\ntaper = true\n[[run]]\n", 2, 1, "staging.taper"), why));
    CHECK(
        contains(only_error("[[run]]\nstaging.taper = true\n", 2, 9, "run[1].staging.taper"), why));
    const auto swept = errors_of("[[run]]\n[sweep]\n\"staging.taper\" = [false, true]\n");
    REQUIRE(swept.size() == 1);
    CHECK(contains(swept[0].message, why));
    // Retired in issue #55, each with the measurement that retired it and what to do instead.
    const std::string stores =
        only_error("[staging]\nstores = \"streaming\"\n[[run]]\n", 2, 1, "staging.stores");
    CHECK(contains(stores,
                   "staging.stores was retired in issue #55: streaming stores into the "
                   "page-locked buffers measured slower than cached ones in every pass on H200"));
    CHECK(contains(stores, "as stores = \"cached\" and \"auto\" did: remove it"));
    const std::string populate =
        only_error("[[run]]\nstaging.populate = \"ahead\"\n", 2, 9, "run[1].staging.populate");
    CHECK(contains(populate,
                   "staging.populate was retired in issue #55: idle helpers faulting a copy's "
                   "pages in ahead measured slower by median in all three passes on H200"));
    CHECK(contains(populate, "mapped_files = \"read\" reads the file instead"));
    // Swept, too: the sweep's key is refused where it stands.
    const auto swept_stores =
        errors_of("[[run]]\n[sweep]\n\"staging.stores\" = [\"cached\", \"streaming\"]\n");
    REQUIRE(swept_stores.size() == 1);
    CHECK(contains(swept_stores[0].message, "staging.stores was retired in issue #55"));
    CHECK(contains(only_error("[[run]]\n", 1, 1, "staging.populate", {"staging.populate=ahead"}),
                   "staging.populate was retired in issue #55"));
}

TEST_CASE("a string left open names the missing quote before the parser's words", "[errors]") {
    const std::string hint =
        "line 2 ends inside a string: add the closing \" (a \"...\" string "
        "ends on the line it starts on; \"\"\"...\"\"\" spans lines)";
    // The parser calls the line break an "unescaped control character".
    const auto basic = only_error("[scenario]\nname = \"abc\n[[run]]\n", 2, 12, "");
    CHECK(basic == hint +
                       " (TOML parser: Error while parsing string: unescaped control "
                       "characters other than TAB (U+0009) are explicitly prohibited)");
    CHECK(only_error("[scenario]\nname = \"abc\r\n[[run]]\n", 2, 12, "") == basic);  // CRLF
    CHECK(contains(only_error("[scenario]\nname = \"abc", 2, 12, ""),
                   hint + " (TOML parser: Error while parsing string: encountered end-of-file)"));
    CHECK(contains(only_error("[scenario]\nname = 'abc\n[[run]]\n", 2, 12, ""),
                   "line 2 ends inside a string: add the closing ' (a '...' string"));
    CHECK(contains(only_error("[scenario]\nname = \"\"\"abc\n[[run]]\n", 3, 9, ""),
                   "the \"\"\" string opened on line 2 is never closed: add the closing \"\"\""));
    // A control character inside the line is not a missing quote: the parser's words alone.
    CHECK(only_error("[scenario]\nname = \"a\x01z\"\n[[run]]\n", 2, 10, "") ==
          "Error while parsing string: unescaped control characters other than TAB (U+0009) are "
          "explicitly prohibited");
}
