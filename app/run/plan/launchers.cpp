#include "run/plan/launchers.hpp"

#include "launch/native_launchers.hpp"
#include "embed/python.hpp"
#include "remote/interpreter_launchers.hpp"
#include "remote/mpi_launcher.hpp"
#include "remote/process_launcher.hpp"

namespace xfer {

LauncherRegistry make_launcher_registry() {
    LauncherRegistry registry;
    register_native_launchers(registry);
    register_python_launchers(registry);
    registry.add("process", make_process_launcher);
    registry.add("mpi", make_mpi_launcher);
    registry.add("python-ft", make_free_threaded_launcher);
    registry.add("python-subinterp", make_subinterpreter_process_launcher);
    return registry;
}

}  // namespace xfer
