#include "persistence/digest.hpp"

#include <cstdio>

#include "core/byte_hash.hpp"

namespace lawnkv::persistence {

namespace {
constexpr uint64_t kSeeds[3] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL};
}  // namespace

void Digest::mix(std::string_view bytes) {
  // Each lane hashes the bytes under its seed and the whole current state,
  // so a change anywhere before reaches every lane.
  const uint64_t state = h_[0] ^ (h_[1] * 0x9E3779B97F4A7C15ULL) ^ (h_[2] * 0xC2B2AE3D27D4EB4FULL);
  for (int i = 0; i < 3; ++i) h_[i] = hash_bytes(bytes, kSeeds[i] ^ state ^ h_[i]) ^ bytes.size();
}

void Digest::mix_int(int64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(static_cast<uint64_t>(v) >> (8 * i));
  mix(std::string_view(buf, 8));
}

void Digest::combine(const Digest& other) {
  for (int i = 0; i < 3; ++i) h_[i] ^= other.h_[i];
}

bool Digest::zero() const { return (h_[0] | h_[1] | h_[2]) == 0; }

std::string Digest::hex() const {
  char buf[49];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx%016llx", static_cast<unsigned long long>(h_[0]),
                static_cast<unsigned long long>(h_[1]), static_cast<unsigned long long>(h_[2]));
  return std::string(buf, kBytes * 2);
}

}  // namespace lawnkv::persistence
