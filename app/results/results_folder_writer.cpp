#include "results/results_folder_writer.hpp"

#include <fmt/format.h>

#include <ostream>

namespace xfer {

struct ResultsFolderWriter::Writer {
    std::unique_ptr<ResultsWriter> writer;
    bool report = false;  // a document written at the end (else: the plan's record)
    bool alive = true;    // false once one of its writes failed: called no more
};

ResultsFolderWriter::ResultsFolderWriter(std::filesystem::path dir,
                                         std::vector<std::unique_ptr<ResultsWriter>> reports,
                                         Options options, std::ostream& said)
    : dir_(std::move(dir)), options_(std::move(options)), said_(said) {
    writers_.push_back({std::make_unique<RecordStoreWriter>(dir_, options_.store_analysis)});
    writers_.push_back({std::make_unique<JournalWriter>(dir_)});
    for (auto& r : reports) writers_.push_back({std::move(r), true});
}

ResultsFolderWriter::~ResultsFolderWriter() = default;

void ResultsFolderWriter::failed(Writer& w, const std::string& what) {
    w.alive = false;
    said_ << "xferlab: " << what << "\n";
    if (write_failure_.empty()) write_failure_ = what;
}

bool ResultsFolderWriter::folder_held(bool say) {
    if (!folder_lost_.empty()) return false;
    if (!options_.folder_check) return true;
    folder_lost_ = options_.folder_check();
    if (folder_lost_.empty()) return true;
    for (Writer& w : writers_) w.writer->release();  // nothing more under that name
    if (say) said_ << "xferlab: " << folder_lost_ << "\n";
    if (write_failure_.empty()) write_failure_ = folder_lost_;
    return false;
}

void ResultsFolderWriter::begin(const Results& plan) {
    for (Writer& w : writers_) {
        try {
            w.writer->begin(plan);
        } catch (const std::exception& e) {
            w.writer->release();
            failed(w, e.what());
        }
    }
}

void ResultsFolderWriter::add_run(const Results& plan, RunResult& run) {
    if (!folder_held(true)) return;
    Writer& store = writers_.front();
    if (store.alive) {
        if (int64_t(run.records.size()) > options_.inline_records)
            run.records_file = store.writer->path().filename().string();
        try {
            store.writer->add_run(plan, run);
        } catch (const std::exception& e) {
            run.records_file.clear();  // results.json keeps them after all
            store.writer->release();
            failed(store, fmt::format("{} (run {} not stored)", e.what(), run.position.index));
        }
    }
    for (size_t i = 1; i < writers_.size(); ++i) {
        Writer& w = writers_[i];
        if (!w.alive) continue;
        try {
            w.writer->add_run(plan, run);
        } catch (const std::exception& e) {
            failed(w, e.what());
        }
    }
}

void ResultsFolderWriter::release() {
    for (Writer& w : writers_) w.writer->release();
}

FolderFinished ResultsFolderWriter::finish(const Results& results) {
    FolderFinished out;
    if (finished_) return out;
    finished_ = true;
    if (!folder_held(false)) {
        out.folder_lost = folder_lost_;
        return out;
    }
    // The reports first, the record's end last: results.sqlite says complete once every other
    // file is written.
    auto finish_one = [&](Writer& w) {
        if (!w.alive) return;
        try {
            if (w.writer->finish(results)) {
                if (w.report) out.reports.push_back(w.writer->path());
            } else if (const std::string note = w.writer->note(); !note.empty()) {
                out.notes.push_back(note);
            }
        } catch (const std::exception& e) {
            w.alive = false;
            w.writer->release();
            out.failures.push_back(w.writer->name() + ": " + e.what());
            said_ << "xferlab: writing " << out.failures.back() << "\n";
        }
    };
    for (Writer& w : writers_)
        if (w.report) finish_one(w);
    for (Writer& w : writers_)
        if (!w.report) finish_one(w);
    return out;
}

}  // namespace xfer
