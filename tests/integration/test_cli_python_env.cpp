// The embedded interpreter is configured from a Python executable (issue #18 item 4): a venv's
// bin/python3 given as python.executable brings that venv's site-packages to the payloads,
// `xferlab devices` and results.json say which Python is embedded, and a bad value is refused.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A venv of the Python xferlab embeds, with a marker module only it holds, and a config that
// names its bin/python3 (python.executable at line 2, column 14).
struct Venv {
    fs::path dir, site_packages, config;
};

Venv make_venv(const fs::path& root) {
    Venv v;
    v.dir = root / "venv";
    const auto r = run_command("'" XFER_TEST_EMBEDDED_PYTHON
                               "' -m venv --without-pip "
                               "--system-site-packages '" +
                               v.dir.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& e : fs::directory_iterator(v.dir / "lib"))
        v.site_packages = e.path() / "site-packages";  // lib/python3.X/site-packages, one X
    REQUIRE(fs::is_directory(v.site_packages));
    std::ofstream(v.site_packages / "xfer_venv_marker.py") << "WHERE = 'in the venv'\n";
    v.config = root / "venv.toml";
    std::ofstream(v.config) << "[python]\nexecutable = \"" << (v.dir / "bin" / "python3").string()
                            << "\"\n";
    return v;
}

// A python run and a process run of a payload that imports the venv's marker.
fs::path write_marker_scenario(const fs::path& root) {
    fs::create_directories(root / "payloads");
    std::ofstream(root / "payloads" / "marker.py")
        << "import xfer_venv_marker\n"
           "def main(ctx):\n"
           "    ctx.note('marker ' + xfer_venv_marker.WHERE)\n"
           "    w = ctx.worker(0)\n"
           "    for _ in range(ctx.copies):\n"
           "        w.copy()\n";
    const fs::path scenario = root / "marker.toml";
    std::ofstream(scenario) << "[scenario]\nname = \"venv-marker\"\nbackend = \"host\"\n"
                               "[transfer]\nbytes = \"64KiB\"\nrepetitions = 1\nwarmup = 0\n"
                               "[threads]\ncount = 1\n"
                               "[[run]]\nlauncher = \"python\"\npayload = \"marker.py\"\n"
                               "[[run]]\nlauncher = \"process\"\npayload = \"marker.py\"\n";
    return scenario;
}

}  // namespace

TEST_CASE("python.executable names a venv: payloads import from its site-packages",
          "[integration]") {
    const fs::path root = fresh_temp_dir("venv");
    const Venv venv = make_venv(root);
    const fs::path scenario = write_marker_scenario(root);
    const std::string args = " run '" + scenario.string() + "' --payload-dir '" +
                             (root / "payloads").string() + "' --quiet --out ";

    // Without the config the marker is not importable: the payload fails, exit 1.
    const auto plain = run_command(xferlab() + args + "'" + (root / "plain").string() + "'");
    CHECK(plain.exit_code == 1);
    CHECK(contains(plain.out, "No module named 'xfer_venv_marker'"));  // the report

    const auto r = run_command(xferlab() + args + "'" + (root / "venv-out").string() +
                               "' --config '" + venv.config.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto results = nlohmann::json::parse(slurp(root / "venv-out" / "results.json"));
    REQUIRE(results["runs"].size() == 2);  // python, then process (its own interpreter)
    for (const auto& run : results["runs"]) {
        CHECK(run["status"] == "ok");
        CHECK(contains(run["notes"].dump(), "marker in the venv"));
    }
    const auto& python = results["host"]["python"];
    CHECK(python["started"] == true);
    CHECK(python["prefix"] == venv.dir.string());
    CHECK(python["executable"] == (venv.dir / "bin" / "python3").string());
    CHECK(python["configured"]["origin"] == venv.config.string() + ":2:14");
    CHECK(contains(python["site_packages"].dump(), venv.site_packages.string()));
    fs::remove_all(root);
}

TEST_CASE("devices prints the embedded Python: executable, prefix, site-packages",
          "[integration]") {
    const fs::path root = fresh_temp_dir("venv-devices");
    const Venv venv = make_venv(root);
    const auto text = run_command(xferlab() + " devices --config '" + venv.config.string() + "'");
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    CHECK(contains(text.out, "configured from " + (venv.dir / "bin" / "python3").string() +
                                 " (python.executable, " + venv.config.string() + ":2:14)"));
    CHECK(contains(text.out, "prefix         " + venv.dir.string() + "\n"));
    CHECK(contains(text.out, "(prefix is a virtual environment)"));
    CHECK(contains(text.out, "site-packages  " + venv.site_packages.string() + "\n"));

    const auto json =
        run_command(xferlab() + " devices --json --config '" + venv.config.string() + "'");
    REQUIRE(json.exit_code == 0);
    const auto python = nlohmann::json::parse(json.out)["python"];
    CHECK(python["virtual_environment"] == true);
    CHECK(python["site_packages"][0] == venv.site_packages.string());

    // Without a config: the interpreter the build found, never whatever python3 PATH has.
    const auto built = run_command("PATH=/nonexistent " + xferlab() + " devices --json");
    REQUIRE(built.exit_code == 0);
    const auto facts = nlohmann::json::parse(built.out)["python"];
    CHECK(facts["configured"]["origin"] == "build");
    CHECK(facts["executable"] == XFER_TEST_EMBEDDED_PYTHON);
    fs::remove_all(root);
}

TEST_CASE("python.executable that cannot be embedded: file:line:column, exit 2", "[integration]") {
    const fs::path root = fresh_temp_dir("venv-bad");
    struct Case {
        std::string value, says;
    };
    // A venv of another Python version: its pyvenv.cfg says so.
    fs::create_directories(root / "other" / "bin");
    std::ofstream(root / "other" / "pyvenv.cfg") << "home = /usr/bin\nversion = 3.99.1\n";
    fs::create_symlink(XFER_TEST_EMBEDDED_PYTHON, root / "other" / "bin" / "python3");
    const std::vector<Case> cases = {
        {"\"" + (root / "nope" / "python3").string() + "\"",
         (root / "nope" / "python3").string() + " does not exist"},
        {"\"" + root.string() + "\"", "is a folder, not an interpreter"},
        {"\"" + (root / "other" / "bin" / "python3").string() + "\"",
         "is in a virtual environment of Python 3.99 (its pyvenv.cfg), but this xferlab embeds "
         "Python 3."},
        {"3", "expected the path of a Python interpreter"},
    };
    for (const auto& c : cases) {
        INFO(c.value);
        const fs::path config = root / "bad.toml";
        std::ofstream(config) << "[python]\nexecutable = " << c.value << "\n";
        for (const std::string command : {" devices", " threads"}) {
            const auto r = run_command(xferlab() + command + " --config '" + config.string() + "'");
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, config.string() + ":2:14: error: python.executable: "));
            CHECK(contains(r.err, c.says));
        }
    }
    fs::remove_all(root);
}

TEST_CASE("plot draws with the config's Python: a venv's matplotlib is the one imported",
          "[integration][plot]") {
    const fs::path root = fresh_temp_dir("venv-plot");
    const Venv venv = make_venv(root);
    // A stand-in matplotlib only the venv holds; its site-packages come before the system's.
    fs::create_directories(venv.site_packages / "matplotlib");
    std::ofstream(venv.site_packages / "matplotlib" / "__init__.py")
        << "raise ImportError('the stand-in in the venv')\n";
    const fs::path results =
        fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures" / "plots" / "sweep.results.json";
    const std::string plot =
        xferlab() + " plot '" + results.string() + "' --out '" + (root / "figures").string() + "'";

    const auto with = run_command(plot + " --config '" + venv.config.string() + "'");
    CHECK(with.exit_code == 2);
    CHECK(contains(with.err, "matplotlib cannot be imported (the stand-in in the venv)"));
    const auto without = run_command(plot);
    CHECK_FALSE(contains(without.err, "the stand-in in the venv"));
    // A config that does not load is refused before anything is drawn.
    std::ofstream(root / "bad.toml") << "[python]\nexecutable = \"/nonexistent/python3\"\n";
    const auto bad = run_command(plot + " --config '" + (root / "bad.toml").string() + "'");
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, "python.executable"));
    fs::remove_all(root);
}

TEST_CASE("devices leaves SIGINT alone: describing the Python does not install its handler",
          "[integration]") {
    // Importing Python's `signal` module installs default_int_handler where SIGINT is still
    // SIG_DFL, which swallowed Ctrl-C in `devices` and `threads` and made the description report
    // the handler its own import had just installed.
    const auto r = run_command(xferlab() + " devices --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto json = nlohmann::json::parse(r.out);
    CHECK(json["python"]["started"] == true);
    CHECK(json["python"]["python_signal_handlers"] == false);
}
