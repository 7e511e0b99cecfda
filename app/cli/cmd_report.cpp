#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "report/reporter.hpp"
#include "results/serialize.hpp"

namespace xfer {

// Re-renders a results.json with this build's analysis: the raw records are all there, so a
// result file alone can be read again after the statistics improve.
int cmd_report(const std::string& file, const std::string& format) {
    Results results;
    try {
        std::ifstream in(file);
        if (!in) {
            std::cerr << "xferlab: cannot open " << file << "\n";
            return exit_bad_input;
        }
        nlohmann::json j = nlohmann::json::parse(in);
        results = j.get<Results>();
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << file << " is not an xferlab results.json: " << e.what() << "\n";
        return exit_bad_input;
    }
    auto reporter = make_reporter(format);
    if (!reporter) {
        std::cerr << "xferlab: unknown format '" << format << "'\n";
        return exit_bad_input;
    }
    Analysis analysis = analyze(results);
    if (format == "table") {
        reporter->write(results, analysis, {}, std::cout);
        return exit_ok;
    }
    // File reporters write into a folder: give them a private one, print, remove it.
    std::string templ = (std::filesystem::temp_directory_path() / "xferlab-report-XXXXXX").string();
    if (!mkdtemp(templ.data())) {
        std::cerr << "xferlab: cannot create a temporary folder\n";
        return exit_bad_input;
    }
    std::filesystem::path path = reporter->write(results, analysis, templ, std::cout);
    {
        std::ifstream written(path);
        std::cout << written.rdbuf();
    }
    std::filesystem::remove_all(templ);
    return exit_ok;
}

}  // namespace xfer
