// Payload names stay inside the payload folders (issue #19), --payload-dir adds folders before
// the default one, and a payload's output never reaches xferlab's stdout (issue #12).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A payload that, if it ever ran, leaves `marker` behind.
void write_evil(const fs::path& file, const fs::path& marker) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "open('" << marker.string() << "', 'w').write('ran')\n"
                        << "def main(ctx):\n    pass\n";
}

// A host run (line 4), then a python run whose `payload` key sits at line 7, column 1.
void write_payload_scenario(const fs::path& file, const std::string& payload_toml) {
    std::ofstream(file) << "[scenario]\nname = \"confined\"\nbackend = \"host\"\n"
                           "[[run]]\nlauncher = \"host\"\n[[run]]\n"
                        << "payload = " << payload_toml << "\nlauncher = \"python\"\n"
                        << "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n";
}

std::string sha256sum(const fs::path& file) {
    auto r = run_command("sha256sum '" + file.string() + "'");
    return r.out.substr(0, 64);
}

}  // namespace

TEST_CASE("payload names leaving the payload folder are refused by check and run, exit 2",
          "[integration]") {
    auto dir = fresh_temp_dir("confine");
    const fs::path payloads = dir / "payloads", outside = dir / "outside";
    const fs::path marker = dir / "evil-ran";
    write_evil(outside / "evil.py", marker);
    fs::create_directories(payloads);
    fs::create_symlink(outside / "evil.py", payloads / "link.py");
    const std::string rel_up = "../outside/evil.py";
    struct Form {
        std::string toml;
        std::string says;
    };
    const std::vector<Form> forms = {
        {"\"" + (outside / "evil.py").string() + "\"", "an absolute path"},
        {"\"" + rel_up + "\"", "'..' component"},
        {"\"link.py\"", "leads out of its payload folder"},
        {"\"evil\\u0000.py\"", "NUL byte"},
        {"\"\"", "an empty name"},
    };
    for (const auto& form : forms) {
        INFO(form.toml);
        const fs::path scenario = dir / "s.toml";
        write_payload_scenario(scenario, form.toml);
        const std::string common =
            " '" + scenario.string() + "' --payload-dir '" + payloads.string() + "'";
        auto check = run_command(xferlab() + " check" + common);
        auto run = run_command(xferlab() + " run" + common + " --quiet --full --out '" +
                               (dir / "out").string() + "'");
        for (const auto& r : {check, run}) {
            INFO(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, scenario.string() + ":7:1: error: run[2].payload"));
            CHECK(contains(r.err, form.says));
            CHECK(contains(r.err, fs::canonical(payloads).string()));
        }
        CHECK(contains(run.err, "nothing was run"));
        CHECK(check.out.empty());
        CHECK_FALSE(fs::exists(dir / "out"));
        CHECK_FALSE(fs::exists(marker));
    }
    fs::remove_all(dir);
}

TEST_CASE("a payload in a subfolder runs, path and SHA-256 are recorded and checked",
          "[integration]") {
    auto dir = fresh_temp_dir("subfolder");
    const fs::path payloads = dir / "payloads";
    fs::create_directories(payloads / "sub");
    fs::copy_file(fs::path(XFER_SOURCE_DIR) / "python_payloads" / "threads.py",
                  payloads / "sub" / "mine.py");
    std::ofstream(payloads / "sub" / "mine.py", std::ios::app) << "# changed: another digest\n";
    const fs::path scenario = dir / "s.toml";
    write_payload_scenario(scenario, "\"sub/mine.py\"");
    const std::string expected = sha256sum(payloads / "sub" / "mine.py");
    REQUIRE(expected.size() == 64);
    const std::string path = fs::canonical(payloads / "sub" / "mine.py").string();
    const std::string common =
        " '" + scenario.string() + "' --payload-dir '" + payloads.string() + "'";

    auto check = run_command(xferlab() + " check" + common);
    INFO(check.err);
    CHECK(check.exit_code == 0);
    CHECK(contains(check.out, "payload sub/mine.py: " + path + " sha256 " + expected));

    const fs::path out = dir / "out";
    auto run =
        run_command(xferlab() + " run" + common + " --quiet --full --out '" + out.string() + "'");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(contains(run.out, "payload sub/mine.py: " + path));
    CHECK(contains(run.out, expected));
    auto results = nlohmann::json::parse(slurp(out / "results.json"));
    const auto& runs = results.at("runs");
    REQUIRE(runs.size() == 2);
    CHECK_FALSE(runs[0].contains("payload"));
    CHECK(runs[1]["payload"]["path"] == path);
    CHECK(runs[1]["payload"]["sha256"] == expected);
    CHECK(runs[1]["payload"]["folder"] == fs::canonical(payloads).string());
    // Re-rendered from results.json, the header still names it.
    auto report =
        run_command(xferlab() + " report --full '" + (out / "results.json").string() + "'");
    CHECK(contains(report.out, expected));
    fs::remove_all(dir);
}

TEST_CASE("payload folders: each --payload-dir in order, then the config's, the default last",
          "[integration]") {
    auto dir = fresh_temp_dir("search");
    const fs::path first = dir / "first", second = dir / "second", conf = dir / "conf";
    const fs::path threads = fs::path(XFER_SOURCE_DIR) / "python_payloads" / "threads.py";
    for (const auto& d : {first, second, conf}) fs::create_directories(d);
    fs::copy_file(threads, first / "mine.py");
    fs::copy_file(threads, second / "mine.py");
    fs::copy_file(threads, conf / "other.py");
    std::ofstream(dir / "config.toml") << "[run]\npayload_dir = [\"conf\"]\n";
    std::ofstream(dir / "s.toml") << "[scenario]\nname = \"mixed\"\nbackend = \"host\"\n"
                                     "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                                     "[[run]]\nlauncher = \"python\"\npayload = \"mine.py\"\n"
                                     "[[run]]\nlauncher = \"python\"\npayload = \"other.py\"\n"
                                     "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\n";
    const fs::path out = dir / "out";
    auto r =
        run_command(xferlab() + " run --full '" + (dir / "s.toml").string() + "' --payload-dir '" +
                    first.string() + "' --payload-dir '" + second.string() + "' --config '" +
                    (dir / "config.toml").string() + "' --quiet --out '" + out.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto runs = nlohmann::json::parse(slurp(out / "results.json")).at("runs");
    REQUIRE(runs.size() == 3);
    CHECK(runs[0]["payload"]["folder"] == fs::canonical(first).string());
    CHECK(runs[1]["payload"]["folder"] == fs::canonical(conf).string());
    CHECK(runs[2]["payload"]["path"] == fs::canonical(threads).string());
    CHECK(contains(r.out, "found in"));
    CHECK(contains(r.out, fs::canonical(first).string() + "),"));
    fs::remove_all(dir);
}

TEST_CASE("a payload's print() goes to stderr and payload-output.log, never into json stdout",
          "[integration]") {
    auto dir = fresh_temp_dir("print");
    std::ofstream(dir / "printer.py")
        << "import sys, threading\n"
           "def main(ctx):\n"
           "    print('hello from main')\n"
           "    def work(i):\n"
           "        w = ctx.worker(i)\n"
           "        print('worker says', i)\n"
           "        sys.stderr.write('to stderr ')\n"
           "        sys.stderr.write('in two writes\\n')\n"
           "        print('no newline', end='')\n"
           "        for _ in range(ctx.copies):\n"
           "            w.copy()\n"
           "    ts = [threading.Thread(target=work, args=(i,)) for i in range(ctx.threads)]\n"
           "    for t in ts: t.start()\n"
           "    for t in ts: t.join()\n";
    std::ofstream(dir / "s.toml") << "[scenario]\nname = \"printer\"\nbackend = \"host\"\n"
                                     "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                                     "[threads]\ncount = 2\n"
                                     "[[run]]\nlauncher = \"python\"\npayload = \"printer.py\"\n"
                                     "[[run]]\nlauncher = \"process\"\npayload = \"printer.py\"\n";
    const fs::path out = dir / "out";
    auto r = run_command(xferlab() + " run '" + (dir / "s.toml").string() + "' --payload-dir '" +
                         dir.string() + "' --format json --quiet --out '" + out.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    nlohmann::json parsed;
    REQUIRE_NOTHROW(parsed = nlohmann::json::parse(r.out));
    CHECK(parsed["runs"].size() == 2);
    CHECK_FALSE(contains(r.out, "hello from main"));
    const std::string log = slurp(out / "payload-output.log");
    for (const std::string& text : {r.err, log}) {
        CHECK(contains(text, "[payload printer.py run 0 xferlab-main] hello from main\n"));
        CHECK(contains(text, "[payload printer.py run 0 w1] worker says 1\n"));
        CHECK(contains(text, "[payload printer.py run 0 w0] to stderr in two writes\n"));
        CHECK(contains(text, "[payload printer.py run 0 w0] no newline\n"));
        // Worker processes (launcher "process") print the same way, into the same log.
        CHECK(contains(text, "[payload printer.py run 1 xferlab-main] hello from main\n"));
        CHECK(contains(text, "[payload printer.py run 1 w1] worker says 0\n"));
    }
    fs::remove_all(dir);
}

TEST_CASE("a payload name that is a folder or a symlink loop is refused with its reason, exit 2",
          "[integration]") {
    auto dir = fresh_temp_dir("payload-kinds");
    const fs::path payloads = dir / "payloads";
    fs::create_directories(payloads / "folder.py");
    fs::create_symlink(payloads / "loop.py", payloads / "loop.py");  // ELOOP when resolved
    struct Form {
        std::string toml;
        std::string says;
    };
    const std::vector<Form> forms = {
        {"\"folder.py\"", "is not a regular file"},
        {"\"loop.py\"", "cannot be resolved"},
    };
    for (const auto& form : forms) {
        INFO(form.toml);
        const fs::path scenario = dir / "s.toml";
        write_payload_scenario(scenario, form.toml);
        auto r = run_command(xferlab() + " check '" + scenario.string() + "' --payload-dir '" +
                             payloads.string() + "'");
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, scenario.string() + ":7:1: error: run[2].payload"));
        CHECK(contains(r.err, form.says));
        CHECK(contains(r.err, "payload folders searched"));
    }
    fs::remove_all(dir);
}
