#include "run/watch/watch_folder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "run/output/output_dir.hpp"
#include "settings/vocabulary.hpp"
#include "watch/watch_records.h"

namespace xfer {
namespace fs = std::filesystem;

std::vector<std::string> earlier_records(const fs::path& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir / kWatchRecordsFolder, ec))
        if (entry.path().extension() == XW_FILE_SUFFIX)
            found.push_back(std::string(kWatchRecordsFolder) + "/" +
                            entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
}

std::optional<OutputLock> take_watch_folder(const fs::path& dir, bool force, bool quiet_busy,
                                            bool& created) {
    auto lock = create_and_lock(dir, quiet_busy, created);
    if (!lock) return std::nullopt;
    std::vector<std::string> earlier = earlier_output(dir);
    const std::vector<std::string> records = earlier_records(dir);
    earlier.insert(earlier.end(), records.begin(), records.end());
    if (!earlier.empty()) {
        if (quiet_busy) return std::nullopt;
        if (!force) {
            std::cerr << fmt::format(
                "xferlab: output folder {} already holds the output of an earlier run ({}): "
                "this run's would be mixed with it. Choose another folder (--out), or add "
                "--force to delete those files first (other files in the folder are kept)\n",
                dir.string(), join_names(earlier));
            return std::nullopt;
        }
        std::vector<std::string> removed = remove_earlier_output(dir);
        for (const auto& r : records) {
            if (::unlink((dir / r).c_str()) != 0 && errno != ENOENT)
                throw std::runtime_error("cannot remove " + (dir / r).string() + ": " +
                                         std::strerror(errno));
            removed.push_back(r);
        }
        std::cerr << fmt::format("xferlab: --force: deleted {} from {}\n", join_names(removed),
                                 dir.string());
    }
    prepare_output_dir(dir);
    std::error_code ec;
    fs::create_directories(dir / kWatchRecordsFolder, ec);
    if (ec)
        throw std::runtime_error("cannot create " + (dir / kWatchRecordsFolder).string() + ": " +
                                 ec.message());
    return lock;
}

}  // namespace xfer
