#pragma once
// SHA-256 (FIPS 180-4) of a byte string: how ACL users keep their passwords
// (ACL SETUSER >pass stores only the digest, as 64 lowercase hex characters,
// which is also what `#hash` takes and ACL GETUSER shows).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv {

// The 32-byte digest of data.
std::array<uint8_t, 32> sha256(std::string_view data);
// The digest as 64 lowercase hex characters.
std::string sha256_hex(std::string_view data);

}  // namespace lawnkv
