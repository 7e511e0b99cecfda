#include "cli/cli.hpp"
#include "python/python.hpp"

int main(int argc, char** argv) {
    const int code = xfer::run_cli(argc, argv);
    xfer::shutdown_python();
    return code;
}
