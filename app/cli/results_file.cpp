#include "cli/results_file.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "results/serialize.hpp"

namespace xfer {
namespace {

// A journal's lines as Results holding only runs. A last line cut short by the kill is skipped
// with a warning; any other bad line makes the file unreadable.
bool read_journal(const std::string& file, std::istream& in, Results& results) {
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    for (size_t i = 0; i < lines.size(); ++i) {
        try {
            results.runs.push_back(nlohmann::json::parse(lines[i]).get<RunResult>());
        } catch (const std::exception& e) {
            if (i + 1 == lines.size() && i > 0) {
                std::cerr << "xferlab: " << file << ": last line " << i + 1
                          << " is cut short (the process ended while writing it); skipped\n";
                break;
            }
            std::cerr << "xferlab: " << file << ":" << i + 1
                      << ": not an xferlab journal line: " << e.what() << "\n";
            return false;
        }
    }
    results.complete = false;  // a journal alone never says whether the plan finished
    return true;
}

}  // namespace

std::optional<Results> read_results_file(const std::string& file) {
    Results results;
    std::ifstream in(file);
    if (!in) {
        std::cerr << "xferlab: cannot open " << file << "\n";
        return std::nullopt;
    }
    if (std::filesystem::path(file).extension() == ".jsonl") {
        if (!read_journal(file, in, results)) return std::nullopt;
        return results;
    }
    try {
        results = nlohmann::json::parse(in).get<Results>();
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << file << " is not an xferlab results.json: " << e.what() << "\n";
        return std::nullopt;
    }
    return results;
}

}  // namespace xfer
