#include "system/hostname.hpp"

#include <unistd.h>

namespace xfer {

const std::string& this_hostname() {
    static const std::string name = [] {
        char buf[256] = {};
        gethostname(buf, sizeof buf - 1);
        return std::string(buf);
    }();
    return name;
}

}  // namespace xfer
