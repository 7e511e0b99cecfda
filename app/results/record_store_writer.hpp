#pragma once
// results.sqlite as a plan's writer: created with the plan's header at begin(), every completed
// run one transaction (record_store.hpp), and at finish() the final header (complete,
// interrupted, devices), the analysis and the switch from WAL back to one file.
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "results/record_store.hpp"
#include "results/results_writer.hpp"

namespace xfer {

// What results.sqlite's `analysis` table holds: each run's analysis (`runs[i]` belongs to the
// results' runs[i]) and the summary, as the report layer writes them into results.json.
struct StoredAnalysis {
    std::vector<nlohmann::json> runs;
    nlohmann::json summary;
};

class RecordStoreWriter final : public ResultsWriter {
  public:
    // `analysis` gives the analysis of the results at finish(); none: the table stays empty.
    using AnalysisOf = std::function<StoredAnalysis(const Results&)>;
    RecordStoreWriter(std::filesystem::path dir, AnalysisOf analysis);
    ~RecordStoreWriter() override;

    std::string name() const override { return kRecordStoreFile; }
    std::filesystem::path path() const override { return path_; }
    // Creates the file (exclusively, not through a link), the schema and the plan's header.
    void begin(const Results& plan) override;
    void add_run(const Results& plan, const RunResult& run) override;
    // Closes the database: a payload that closes every descriptor (os.closerange(3, 1024)) left
    // SQLite writing through numbers that named other files by then ("locking protocol", the
    // run lost). Opened again at the next call; holding it open across native runs keeps a
    // plan of many short runs cheap (each reopening costs the write-ahead log's checkpoint and
    // its fsyncs).
    void release() override { store_.reset(); }
    // The final header, WAL back to a rollback journal (readers leave no -wal and -shm), then
    // the analysis ("the analysis could not be added: ..." when that part fails).
    bool finish(const Results& results) override;

  private:
    RecordStore& open();

    std::filesystem::path path_;
    AnalysisOf analysis_;
    std::unique_ptr<RecordStore> store_;
};

}  // namespace xfer
