#pragma once
// journal.jsonl: one line per completed run (serialize.hpp's journal_line: the run, and under
// "plan" the tool version, host and resolved scenario it ran under), appended and fsync'd as
// the run ends, so that a crash or a kill later in the plan keeps every completed run. Read back
// by journal_reader.hpp.
#include <filesystem>

#include "results/results_writer.hpp"

namespace xfer {

class JournalWriter final : public ResultsWriter {
  public:
    explicit JournalWriter(std::filesystem::path dir);

    std::string name() const override;
    std::filesystem::path path() const override { return path_; }
    void begin(const Results&) override {}  // the first line creates the file
    // Appends the run's line. The plan's first line creates the file (nothing may be there
    // yet: what is there was not written by this plan); every line is written without
    // following a link (util/no_follow.hpp), whole or not at all: a line cut short by a full
    // disk is cut back off, so that the journal never holds a torn line with later lines after
    // it. Throws std::runtime_error naming the file.
    void add_run(const Results& plan, const RunResult& run) override;
    bool finish(const Results&) override { return true; }  // every line is on disk already

  private:
    std::filesystem::path path_;
    bool created_ = false;
};

}  // namespace xfer
