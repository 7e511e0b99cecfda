#pragma once
// Catch2 2 (Debian 12) and Catch2 3 (the GPU host) behind one include.
#ifdef XFER_CATCH3
#include <catch2/catch_all.hpp>
using Catch::Approx;  // Catch2 2 has it at global scope
// Catch2 2's string matchers under their Catch2 2 names (Catch2 3 moved them to Catch::Matchers
// and renamed Contains to ContainsSubstring).
namespace Catch {
inline auto Contains(const std::string& s) { return Matchers::ContainsSubstring(s); }
inline auto StartsWith(const std::string& s) { return Matchers::StartsWith(s); }
inline auto EndsWith(const std::string& s) { return Matchers::EndsWith(s); }
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
