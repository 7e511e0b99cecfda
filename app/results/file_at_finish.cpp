#include "results/file_at_finish.hpp"

#include "results/atomic_file.hpp"

namespace xfer {

FileAtFinish::FileAtFinish(std::string name, std::filesystem::path path, Content content)
    : name_(std::move(name)), path_(std::move(path)), content_(std::move(content)) {}

bool FileAtFinish::finish(const Results& results) {
    note_.clear();
    const std::optional<std::string> text = content_(results, note_);
    if (!text) return false;
    write_file_atomically(path_, *text);
    return true;
}

}  // namespace xfer
