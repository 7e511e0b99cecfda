// The command line's arguments in every order: options that take one value take one value, and
// plain arguments are always the command's files (issue 48, item 1). Each command is parsed
// with its files and one or two of its options placed before, between and after the files, and
// every option is read back along with the files.
#include <functional>

#include "cli/commands.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

using Tokens = std::vector<std::string>;

// One option as typed, and what it must have set.
struct OptionCase {
    Tokens tokens;
    std::function<bool(const Commands&)> set;
};

// Every arrangement of `files` (kept in their order) and `options` (in any order).
std::vector<Tokens> arrangements(const Tokens& files, const std::vector<Tokens>& options) {
    std::vector<Tokens> items;  // files first, then options
    for (const auto& f : files) items.push_back({f});
    for (const auto& o : options) items.push_back(o);
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<Tokens> out;
    do {
        // The files in their own order: a permutation that swaps them is another command.
        std::vector<size_t> file_positions;
        for (size_t i : order)
            if (i < files.size()) file_positions.push_back(i);
        if (!std::is_sorted(file_positions.begin(), file_positions.end())) continue;
        Tokens args;
        for (size_t i : order) args.insert(args.end(), items[i].begin(), items[i].end());
        out.push_back(std::move(args));
    } while (std::next_permutation(order.begin(), order.end()));
    return out;
}

std::string shown(const Tokens& args) {
    std::string s;
    for (const auto& a : args) s += (s.empty() ? "" : " ") + (a.empty() ? "''" : a);
    return s;
}

// Parses `command` with `files` and every option alone and every pair of options, in every
// arrangement; `files_read` says whether the command got exactly `files`.
void check_orders(const std::string& command, const Tokens& files,
                  const std::vector<OptionCase>& options,
                  const std::function<bool(const Commands&)>& files_read) {
    std::vector<std::vector<size_t>> picks;
    for (size_t i = 0; i < options.size(); ++i) {
        picks.push_back({i});
        for (size_t j = 0; j < options.size(); ++j)
            if (j != i) picks.push_back({i, j});
    }
    size_t parsed = 0;
    for (const auto& pick : picks) {
        std::vector<Tokens> chosen;
        for (size_t i : pick) chosen.push_back(options[i].tokens);
        for (const Tokens& tail : arrangements(files, chosen)) {
            Tokens args{"xferlab", command};
            args.insert(args.end(), tail.begin(), tail.end());
            INFO(shown(args));
            Commands c;
            REQUIRE_NOTHROW(c.parse(args));
            CHECK(files_read(c));
            for (size_t i : pick) CHECK(options[i].set(c));
            ++parsed;
        }
    }
    CHECK(parsed > options.size());
}

bool has(const Tokens& values, const std::string& v) {
    return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

TEST_CASE("run: options take one value each, plain arguments are scenario files in any order",
          "[cli]") {
    const std::vector<OptionCase> options = {
        {{"--set", "threads.count=2"}, [](auto& c) { return has(c.run.sets, "threads.count=2"); }},
        {{"--set=transfer.bytes=16MiB"},
         [](auto& c) { return has(c.run.sets, "transfer.bytes=16MiB"); }},
        {{"--payload-dir", "pd"},
         [](auto& c) { return c.run.common.payload_dirs == Tokens{"pd"}; }},
        {{"--trials", "3"}, [](auto& c) { return c.run.trials == 3; }},
        {{"--out", "o"}, [](auto& c) { return c.run.out == "o"; }},
        {{"--config", "c.toml"}, [](auto& c) { return c.run.common.config == "c.toml"; }},
        {{"--format", "json"}, [](auto& c) { return c.run.format == "json"; }},
        {{"--quiet"}, [](auto& c) { return c.run.quiet; }},
        {{"--force"}, [](auto& c) { return c.run.force; }},
        {{"--fit"}, [](auto& c) { return c.run.fit; }},
        {{"--brief"}, [](auto& c) { return c.run.detail.brief; }},
    };
    check_orders("run", {"a.toml", "b.toml"}, options, [](const Commands& c) {
        return c.run.files == Tokens{"a.toml", "b.toml"};
    });
}

TEST_CASE("check: --set, --payload-dir and --trials never take a scenario file", "[cli]") {
    const std::vector<OptionCase> options = {
        {{"--set", "k=v"}, [](auto& c) { return has(c.check.sets, "k=v"); }},
        {{"--set=k2=v2"}, [](auto& c) { return has(c.check.sets, "k2=v2"); }},
        {{"--payload-dir", "pd"},
         [](auto& c) { return c.check.common.payload_dirs == Tokens{"pd"}; }},
        {{"--trials", "2"}, [](auto& c) { return c.check.trials == 2; }},
        {{"--config", "c.toml"}, [](auto& c) { return c.check.common.config == "c.toml"; }},
    };
    check_orders("check", {"A.toml", "B.toml"}, options, [](const Commands& c) {
        return c.check.files == Tokens{"A.toml", "B.toml"};
    });
}

TEST_CASE("report, plot and compare: their files in any order with their options", "[cli]") {
    check_orders("report", {"r.json"},
                 {{{"--format", "csv"}, [](auto& c) { return c.report.format == "csv"; }},
                  {{"--full"}, [](auto& c) { return c.report.detail.full; }}},
                 [](const Commands& c) { return c.report.file == "r.json"; });
    check_orders("plot", {"r.json"},
                 {{{"--run", "2"}, [](auto& c) { return c.plot.runs == Tokens{"2"}; }},
                  {{"--out", "figs"}, [](auto& c) { return c.plot.out == "figs"; }},
                  {{"--format", "svg"}, [](auto& c) { return c.plot.format == "svg"; }},
                  {{"--config", "c.toml"}, [](auto& c) { return c.plot.config == "c.toml"; }}},
                 [](const Commands& c) { return c.plot.file == "r.json"; });
    check_orders(
        "compare", {"a.json", "b.json"},
        {{{"--format", "json"}, [](auto& c) { return c.compare.format == "json"; }},
         {{"--strict"}, [](auto& c) { return c.compare.strict; }}},
        [](const Commands& c) { return c.compare.a == "a.json" && c.compare.b == "b.json"; });
    for (const char* command : {"list", "devices", "threads"}) {
        Commands c;
        REQUIRE_NOTHROW(c.parse({"xferlab", command, "--payload-dir", "p", "--payload-dir", "q"}));
    }
}

TEST_CASE("an option given an empty value (--out=) keeps it empty instead of taking a file",
          "[cli]") {
    Commands c;
    c.parse({"xferlab", "run", "--out=", "a.toml"});
    CHECK(c.run.out == "");
    CHECK(c.run.files == Tokens{"a.toml"});
    Commands quiet;  // a flag is not an option with a value: left for CLI11 to judge
    CHECK(split_empty_values(quiet.app, {"xferlab", "run", "--quiet=", "a.toml"}) ==
          Tokens{"xferlab", "run", "--quiet=", "a.toml"});
    CHECK(split_empty_values(quiet.app, {"xferlab", "run", "--", "--out="}) ==
          Tokens{"xferlab", "run", "--", "--out="});
}

TEST_CASE("run --trials that is not a whole number says so, with the range", "[cli]") {
    for (const char* bad : {"abc", "1.5", "", "-1", "0", "1001", "2x"}) {
        Commands c;
        INFO(bad);
        try {
            c.parse({"xferlab", "run", "--trials", bad, "a.toml"});
            FAIL("accepted");
        } catch (const CLI::ParseError& e) {
            CHECK(std::string(e.what()).find("a whole number from 1 to 1000") != std::string::npos);
            CHECK(std::string(e.what()).find(std::string("'") + bad + "'") != std::string::npos);
        }
    }
}

TEST_CASE("--help lists every exit code, 3 (the results could not be written) among them",
          "[cli]") {
    // The help listed 0, 1, 2 and 130: a run that stopped at a full disk exited with a code the
    // help did not name.
    Commands c;
    const std::string help = c.app.help();
    for (const char* code :
         {"0 success", "1 a run failed or stdout could not take the output", "2 bad input",
          "3 the results could not be written (a full disk, a file size limit)",
          "130 interrupted (SIGINT, SIGTERM, SIGHUP)",
          "141 stdout or stderr lost its reader (a closed pipe; the files are written)"}) {
        INFO(code);
        CHECK(help.find(code) != std::string::npos);
    }
}
