#include "system/meminfo.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace xfer {

std::optional<uint64_t> keyed_number(const std::filesystem::path& file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0 || line.size() == key.size()) continue;
        if (line[key.size()] != ' ' && line[key.size()] != '\t') continue;
        std::istringstream fields(line.substr(key.size()));
        uint64_t n = 0;
        if (fields >> n) return n;
    }
    return std::nullopt;
}

MemInfo read_meminfo(const std::filesystem::path& file) {
    MemInfo m;
    m.total = keyed_number(file, "MemTotal:").value_or(0) * 1024;
    if (auto kib = keyed_number(file, "MemAvailable:")) {
        m.available = *kib * 1024;
    } else {
        const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        m.available = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
    }
    return m;
}

}  // namespace xfer
