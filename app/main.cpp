#include "cli/cli.hpp"

int main(int argc, char** argv) { return xfer::run_cli(argc, argv); }
