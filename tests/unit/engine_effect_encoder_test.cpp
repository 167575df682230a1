// The RESP form of effect records (engine/effect_encoder.hpp): the worked
// example of its header, and each stream's own selected db.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/effect_encoder.hpp"

namespace lawnkv::test {
namespace {

std::string encode(EffectEncoder& enc, std::vector<EffectRecord> records) {
  std::string out;
  enc.encode(records, out);
  return out;
}

TEST_CASE("effect encoder: the header's worked example") {
  EffectEncoder enc;
  CHECK(encode(enc, {{0, {"SET", "x", "0"}}}) == "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n0\r\n");
  CHECK(encode(enc, {{1, {"SET", "a", "1"}}, {1, {"INCR", "b"}}}) ==
        "*1\r\n$5\r\nMULTI\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
        "*2\r\n$4\r\nINCR\r\n$1\r\nb\r\n*1\r\n$4\r\nEXEC\r\n");
  // Still in db 1: no SELECT.
  CHECK(encode(enc, {{1, {"DEL", "a"}}}) == "*2\r\n$3\r\nDEL\r\n$1\r\na\r\n");
}

TEST_CASE("effect encoder: each stream selects its own db, and reset starts a new stream") {
  EffectEncoder aof, replica;
  CHECK(encode(aof, {{2, {"DEL", "k"}}}).starts_with("*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"));
  CHECK(encode(aof, {{2, {"DEL", "k"}}}) == "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
  CHECK(encode(replica, {{2, {"DEL", "k"}}}).starts_with("*2\r\n$6\r\nSELECT\r\n"));
  aof.reset();
  CHECK(encode(aof, {{2, {"DEL", "k"}}}).starts_with("*2\r\n$6\r\nSELECT\r\n"));
  // An empty argument and a binary one go as bulk strings of their length.
  CHECK(encode(aof, {{2, {"SET", "", std::string("\0\r\n", 3)}}}) ==
        "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$3\r\n" + std::string("\0\r\n", 3) + "\r\n");
}

}  // namespace
}  // namespace lawnkv::test
