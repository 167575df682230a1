#pragma once
// DEBUG DIGEST's 160-bit digest of a dataset, so a test can check a save and
// load (or a replay) in one comparison. Not Redis's values (they hash with
// SHA-1 in its own order of fields), but built the same way: a key's digest
// mixes its name, its value and its deadline in order; a value made of
// unordered parts (set members, hash fields) combines their digests with
// xor, so iteration order and encoding do not matter; the dataset's digest
// is the xor of its keys' digests, so key order does not matter either, and
// an empty dataset is 40 zeros, as Redis replies.
//
// The mixing function is three 64-bit hashes of the input (core/byte_hash)
// under different seeds, chained with the current state: fine for telling
// datasets apart in tests, not a cryptographic hash.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::persistence {

class Digest {
 public:
  static constexpr size_t kBytes = 20;

  // State := H(state, bytes): order matters.
  void mix(std::string_view bytes);
  void mix_int(int64_t v);
  // State ^= other: order does not matter.
  void combine(const Digest& other);
  bool zero() const;
  // 40 lowercase hex digits.
  std::string hex() const;

 private:
  std::array<uint64_t, 3> h_{};  // 192 bits; hex() shows the first 160
};

}  // namespace lawnkv::persistence
