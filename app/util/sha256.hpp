#pragma once
// SHA-256 through OpenSSL's libcrypto: results name the exact payload code that ran, and
// `check` prints the same digest without starting Python.
#include <string>
#include <string_view>

namespace xfer {

// Lower-case hex digest of `bytes` (64 characters). Throws std::runtime_error if libcrypto fails.
std::string sha256_hex(std::string_view bytes);

}  // namespace xfer
