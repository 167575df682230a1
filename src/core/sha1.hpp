#pragma once
// SHA-1 (FIPS 180-4) of a byte string, as the lowercase hex digest that
// names a script in Redis's script cache (EVALSHA, SCRIPT LOAD) and that
// redis.sha1hex returns. Not for security: Redis uses it as a cache key.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv {

// The 20-byte digest of data.
std::array<uint8_t, 20> sha1(std::string_view data);
// The digest as 40 lowercase hex characters.
std::string sha1_hex(std::string_view data);

}  // namespace lawnkv
