#pragma once
// Whether this test binary is built with ASan or TSan: they reserve terabytes of address space
// for their shadow memory at start, so a sanitized xferlab cannot start under `ulimit -v` (or
// a small `ulimit -d`) at all, and tests that set one skip.
namespace xfer::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

}  // namespace xfer::test
