// The GPU tests' main: when no CUDA device answers, say why and exit 77, which ctest counts as
// skipped (tests/CMakeLists.txt: SKIP_RETURN_CODE 77). Otherwise run the [gpu] tests.
#include <cstdio>

// Without the CUDA backend there are no [gpu] tests to run, and no Catch runner is compiled.
#ifdef XFER_HAVE_CUDA
#ifndef XFER_CATCH3
#define CATCH_CONFIG_RUNNER
#endif
#include "backend/cuda/cuda_backend.hpp"
#include "support/catch.hpp"
#endif

int main(int argc, char** argv) {
#ifdef XFER_HAVE_CUDA
    const auto cuda = xfer::cuda::availability();
    if (!cuda.available) {
        std::printf("SKIPPED: %s\n", cuda.reason.c_str());
        return 77;
    }
    std::printf("cuda: %s\n", cuda.reason.c_str());
    std::fflush(stdout);
    return Catch::Session().run(argc, argv);
#else
    (void)argc;
    (void)argv;
    std::printf("SKIPPED: built without the CUDA backend (no CUDA toolkit with CUPTI found)\n");
    return 77;
#endif
}
