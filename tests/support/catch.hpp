#pragma once
// Catch2 2 (Debian 12) and Catch2 3 (the GPU host) behind one include.
#ifdef XFER_CATCH3
#include <catch2/catch_all.hpp>
using Catch::Approx;  // Catch2 2 has it at global scope
#else
#include <catch2/catch.hpp>
#endif
