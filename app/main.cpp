#include "cli/cli.hpp"
#include "embed/python.hpp"

int main(int argc, char** argv) {
    const int code = xfer::run_cli(argc, argv);
    xfer::shutdown_python();
    return code;
}
