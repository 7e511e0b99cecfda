#include "launch/native_launchers.hpp"

#include "launch/host_launcher.hpp"
#include "launch/openmp_launcher.hpp"

namespace xfer {

void register_native_launchers(LauncherRegistry& registry) {
    registry.add("host", make_host_launcher);
    registry.add("openmp", make_openmp_launcher);
}

}  // namespace xfer
