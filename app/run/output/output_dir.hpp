#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// The payload log `xferlab run` writes into its output folder beside the results
// (results/folder_files.hpp).
inline constexpr const char* kPayloadLogFile = "payload-output.log";

// `name` as one folder name: every character but letters, digits, '-', '_' and '.' becomes
// '_', and a name of dots alone starts with '_' ("." and ".." are folders already), so that a
// scenario's name cannot add folders to a path or leave it ("scenario" when empty).
std::string folder_safe_name(const std::string& name);

// `dir` as an absolute, lexically normal path ("out/" -> "/cwd/out"), taken before any run: a
// payload may change the process's working folder (os.chdir), after which a relative path
// names another folder. The path is not resolved through links: a folder that is itself a
// link is still refused (output_folder_problem), and the output lock notices a folder moved or
// replaced later (run/output/output_lock.hpp).
std::filesystem::path absolute_folder(const std::filesystem::path& dir);

// Expands {timestamp} (UTC YYYYMMDD-HHMMSS) and {scenario} (folder_safe_name) in `pattern`.
std::filesystem::path expand_output_dir(const std::string& pattern, const std::string& scenario);

// The files of an earlier `xferlab run` in `dir`, in a fixed order: every file reporter's file
// (whether or not the config enables it), results.sqlite (with its -wal and -shm), the journal, the
// payload log, and what an interrupted write leaves (.NAME.tmp.PID of those files, the writability
// probe). Nothing else in the folder counts. Empty when `dir` does not exist.
std::vector<std::string> earlier_output(const std::filesystem::path& dir);

// Deletes exactly the files earlier_output(dir) lists (`run --force`), never another file or
// folder. Returns their names; throws std::runtime_error naming a file that cannot be removed.
std::vector<std::string> remove_earlier_output(const std::filesystem::path& dir);

// `dir` when it holds no earlier output, else the first of `dir`-2, `dir`-3, ... that holds
// none: for folder names made from {timestamp}, which repeat within one second.
std::filesystem::path unused_output_dir(const std::filesystem::path& dir);

// Creates `dir` and proves it writable by writing and removing a file. Throws
// std::runtime_error naming the folder and the reason, before any run starts.
void prepare_output_dir(const std::filesystem::path& dir);

// Why `dir` cannot be an output folder as it is, checked once before xferlab locks it: the folder
// is a symbolic link, or one of the names xferlab writes in it (its files, the lock, the
// probe, the temporary names of its rewrites) is a link, a FIFO or anything but a regular file.
// "" when it can (also when it does not exist yet). Each file is still opened without following
// links, so a link planted after this check is refused too.
std::string output_folder_problem(const std::filesystem::path& dir);

}  // namespace xfer
