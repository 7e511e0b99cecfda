#pragma once
// A results file that is one document about the whole plan (results.json, copies.csv, runs.csv,
// trace.json): written once, when the plan is over, atomically (atomic_file.hpp: a reader sees
// no file or the whole one, never half of it). Nothing is written per run: until the plan ends
// the folder's record of it is results.sqlite and the journal, which `xferlab report DIR` reads
// then (results/results_reader.hpp).
#include <functional>
#include <optional>
#include <string>

#include "results/results_writer.hpp"

namespace xfer {

class FileAtFinish final : public ResultsWriter {
  public:
    // The file's text for `results`; nullopt leaves the file out, with `note` saying why.
    using Content = std::function<std::optional<std::string>(const Results&, std::string& note)>;
    FileAtFinish(std::string name, std::filesystem::path path, Content content);

    std::string name() const override { return name_; }
    std::filesystem::path path() const override { return path_; }
    void begin(const Results&) override {}
    void add_run(const Results&, const RunResult&) override {}
    bool finish(const Results& results) override;
    std::string note() const override { return note_; }

  private:
    std::string name_;
    std::filesystem::path path_;
    Content content_;
    std::string note_;
};

}  // namespace xfer
