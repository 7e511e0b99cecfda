#include "results/record_store_writer.hpp"

#include <stdexcept>

namespace xfer {

RecordStoreWriter::RecordStoreWriter(std::filesystem::path dir, AnalysisOf analysis)
    : path_(std::move(dir) / kRecordStoreFile), analysis_(std::move(analysis)) {}

RecordStoreWriter::~RecordStoreWriter() = default;

RecordStore& RecordStoreWriter::open() {
    if (!store_) store_ = std::make_unique<RecordStore>(path_.string(), false);
    return *store_;
}

void RecordStoreWriter::begin(const Results& plan) {
    store_ = std::make_unique<RecordStore>(path_.string(), true);
    store_->write_plan(plan);
}

void RecordStoreWriter::add_run(const Results&, const RunResult& run) { open().add_run(run); }

bool RecordStoreWriter::finish(const Results& results) {
    RecordStore& store = open();
    store.write_plan(results);
    store.end_plan();
    if (analysis_) {
        try {
            const StoredAnalysis a = analysis_(results);
            store.write_analysis(results, a.runs, a.summary);
        } catch (const std::exception& e) {
            store_.reset();
            throw std::runtime_error(std::string("the analysis could not be added: ") + e.what());
        }
    }
    store_.reset();
    return true;
}

}  // namespace xfer
