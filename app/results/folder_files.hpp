#pragma once
// The names of the files in a results folder that hold results, one place for each: what
// `run` writes there (results_folder_writer.hpp) and what a reader looks for in a folder it is
// given (results_reader.hpp), in the order it prefers them.
#include <array>

#include "results/record_store.hpp"

namespace xfer {

inline constexpr const char* kResultsJsonFile = "results.json";
inline constexpr const char* kJournalFile = "journal.jsonl";

// What a reader given a results folder reads: the first of these that is there. results.json
// is the whole plan with its analysis, written when the plan ended; results.sqlite holds every
// completed run from the moment it ended (and runs of any size); the journal is what is left
// when neither is.
inline constexpr std::array<const char*, 3> kReadOrder = {kResultsJsonFile, kRecordStoreFile,
                                                          kJournalFile};

}  // namespace xfer
