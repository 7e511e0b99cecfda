// `xferlab completion bash` and `xferlab help`: the script parses and completes commands, flags,
// their values, --set keys and file names as bash would ask it to (COMP_WORDS, COMP_CWORD);
// `help scenario-keys` lists every scenario key the loader accepts; `help record-fields` the
// record fields' table.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "results/record_fields.hpp"
#include "results/record_fields_doc.hpp"
#include "scenario/scenario_keys.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

std::vector<std::string> words_of(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    std::sort(words.begin(), words.end());
    return words;
}

// The completion script, written once into a folder that also holds files to complete.
struct Completion {
    fs::path dir = fresh_temp_dir("completion");
    fs::path script = dir / "xferlab.bash";

    Completion() {
        const auto r = run_command(xferlab() + " completion bash");
        REQUIRE(r.exit_code == 0);
        std::ofstream(script) << r.out;
        fs::create_directory(dir / "sub");
        for (const char* f : {"seed.toml", "notes.txt", "results.json", "journal.jsonl",
                              "results.sqlite"})
            std::ofstream(dir / f) << "x\n";
    }
    ~Completion() { fs::remove_all(dir); }

    // What bash offers for the command line `words` (the last word is completed), sorted.
    std::vector<std::string> complete(const std::vector<std::string>& words) const {
        std::string array;
        for (const auto& w : words) array += " '" + w + "'";
        const std::string program = "source '" + script.string() + "' || exit 3; COMP_WORDS=(" +
                                    array + "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                                    "; _xferlab; printf '%s\\n' \"${COMPREPLY[@]}\"";
        std::ofstream(dir / "complete.sh") << program << "\n";
        const auto r = run_command("cd '" + dir.string() + "' && bash '" +
                                   (dir / "complete.sh").string() + "'");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        return words_of(r.out);
    }
};

using Words = std::vector<std::string>;

}  // namespace

TEST_CASE("the completion script parses", "[integration][completion]") {
    Completion c;
    const auto r = run_command("bash -n '" + c.script.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(slurp(c.script), "complete -F _xferlab"));
}

TEST_CASE("completion: commands, flags and their values", "[integration][completion]") {
    Completion c;
    CHECK(c.complete({"xferlab", "r"}) == Words{"report", "run"});
    CHECK(c.complete({"xferlab", "he"}) == Words{"help"});
    CHECK(c.complete({"xferlab", "run", "--fo"}) == Words{"--force", "--format"});
    CHECK(c.complete({"xferlab", "run", "--b"}) == Words{"--brief"});
    CHECK(c.complete({"xferlab", "run", "--format", ""}) == Words{"csv", "json", "runs", "table"});
    CHECK(c.complete({"xferlab", "report", "--format", "t"}) == Words{"table", "trace"});
    CHECK(c.complete({"xferlab", "help", "sc"}) == Words{"scenario-keys"});
    // Every command is a help topic, those registered last too.
    CHECK(c.complete({"xferlab", "help", "pl"}) == Words{"plot"});
    CHECK(c.complete({"xferlab", "help", "comp"}) == Words{"compare", "completion"});
    for (const char* command : {"plot", "compare"}) {
        const auto r = run_command(xferlab() + " help " + command);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, std::string("xferlab ") + command));
    }
    CHECK(c.complete({"xferlab", "completion", ""}) == Words{"bash"});
    // The hidden command that launcher "process" starts (worker) is not offered; watch is.
    CHECK(c.complete({"xferlab", "w"}) == Words{"watch"});
}

TEST_CASE("completion: --set offers the scenario keys", "[integration][completion]") {
    Completion c;
    Words threads;
    for (const auto& d : xfer::scenario_key_descriptors())
        if (d.key.rfind("threads.", 0) == 0) threads.push_back(d.key + "=");
    std::sort(threads.begin(), threads.end());
    REQUIRE(threads.size() == 9);
    CHECK(c.complete({"xferlab", "run", "x.toml", "--set", "thr"}) == threads);
    CHECK(c.complete({"xferlab", "check", "--set", "transfer.by"}) == Words{"transfer.bytes="});
    CHECK(c.complete({"xferlab", "run", "--set", "par"}) == Words{"params."});
    // bash splits "threads.count=8" at "=": the value is the user's.
    CHECK(c.complete({"xferlab", "run", "--set", "threads.count", "=", ""}).empty());
}

TEST_CASE("completion: scenario and results files, folders", "[integration][completion]") {
    Completion c;
    CHECK(c.complete({"xferlab", "run", ""}) == Words{"seed.toml", "sub"});
    CHECK(c.complete({"xferlab", "check", "--set", "threads.count=2", "s"}) ==
          Words{"seed.toml", "sub"});
    CHECK(c.complete({"xferlab", "report", ""}) ==
          Words{"journal.jsonl", "results.json", "results.sqlite", "sub"});
    CHECK(c.complete({"xferlab", "run", "--out", ""}) == Words{"sub"});
    CHECK(c.complete({"xferlab", "list", "--config", ""}) == Words{"seed.toml", "sub"});
}

TEST_CASE("help scenario-keys lists every scenario key with its type and default",
          "[integration][completion]") {
    const auto r = run_command(xferlab() + " help scenario-keys");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // Each table row (continuation lines start with blanks), its blanks squeezed.
    std::vector<std::string> rows;
    std::istringstream lines(r.out);
    bool table = false;
    for (std::string line; std::getline(lines, line);) {
        table = table || line.rfind("key ", 0) == 0;
        if (!table || line.empty() || line[0] == ' ' || line.rfind("key ", 0) == 0) continue;
        std::string row;
        for (char ch : line)
            if (ch != ' ' || (!row.empty() && row.back() != ' ')) row += ch;
        rows.push_back(row);
    }
    const auto& descriptors = xfer::scenario_key_descriptors();
    REQUIRE(rows.size() == descriptors.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto& d = descriptors[i];
        CHECK(rows[i].rfind(d.key + " " + d.type + " " + d.default_value + " ", 0) == 0);
    }
    CHECK(contains(r.out, "\ntransfer.bytes "));

    auto bad = run_command(xferlab() + " help scenario-kys");
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, "scenario-kys not in {scenario-keys,"));
    auto run = run_command(xferlab() + " help run");
    CHECK(run.exit_code == 0);
    CHECK(contains(run.out, "--set KEY=VALUE"));
}

TEST_CASE("tools/install-completion.sh puts the script where bash-completion looks",
          "[integration][completion]") {
    const fs::path dir = fresh_temp_dir("install-completion");
    const fs::path build = fs::path(XFER_BINARY).parent_path();
    const auto r =
        run_command("BASH_COMPLETION_USER_DIR='" + dir.string() + "' '" + XFER_SOURCE_DIR +
                    "/tools/install-completion.sh' '" + build.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const fs::path installed = dir / "completions" / "xferlab";
    CHECK(contains(r.err, "bash completion: " + installed.string()));
    const std::string script = slurp(installed);
    CHECK(contains(script, "\n_xferlab() {\n"));
    // Registered for the name and for the path it was built at.
    CHECK(contains(script, "complete -F _xferlab "));
    CHECK(contains(script, " 'xferlab'\n"));
    CHECK(contains(script, "'" + (build / "xferlab").lexically_normal().string() + "'"));
    CHECK(run_command("bash -n '" + installed.string() + "'").exit_code == 0);
    CHECK_FALSE(fs::exists(dir / "completions" / "xferlab.tmp"));
    fs::remove_all(dir);
}

TEST_CASE("help record-fields prints the record fields' table in each form, and only it",
          "[integration][completion]") {
    const auto md = run_command(xferlab() + " help record-fields --markdown");
    INFO(md.err);
    CHECK(md.exit_code == 0);
    CHECK(md.out == xfer::record_fields_markdown());
    const auto js = run_command(xferlab() + " help record-fields --json");
    CHECK(js.exit_code == 0);
    CHECK(nlohmann::json::parse(js.out) == xfer::record_fields_json());
    const auto text = run_command(xferlab() + " help record-fields");
    CHECK(text.exit_code == 0);
    for (const xfer::RecordField& f : xfer::record_fields()) CHECK(contains(text.out, f.name));

    const auto json_elsewhere = run_command(xferlab() + " help scenario-keys --json");
    CHECK(json_elsewhere.exit_code == 2);
    CHECK(json_elsewhere.err == "xferlab help: --json goes with the topic record-fields alone\n");
    const auto both = run_command(xferlab() + " help record-fields --json --markdown");
    CHECK(both.exit_code == 2);
    CHECK(both.err == "xferlab help: --json goes with the topic record-fields alone\n");
    const auto markdown_elsewhere = run_command(xferlab() + " help run --markdown");
    CHECK(markdown_elsewhere.exit_code == 2);
    CHECK(markdown_elsewhere.err ==
          "xferlab help: --markdown goes with the topic explanations or record-fields\n");
}
