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

TEST_CASE("effect encoder: encode_each joins a run of single-key DELs in one db, the rest as they are") {
  EffectEncoder enc;
  std::string out;
  enc.encode_each(std::vector<EffectRecord>{{0, {"DEL", "a"}},
                                            {0, {"DEL", "b"}},
                                            {0, {"HDEL", "h", "f"}},
                                            {0, {"DEL", "c"}},
                                            {1, {"DEL", "d"}},
                                            {1, {"DEL", "e"}},
                                            {1, {"DEL", "f", "g"}}},
                  out);
  CHECK(out ==
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$1\r\nb\r\n"
        "*3\r\n$4\r\nHDEL\r\n$1\r\nh\r\n$1\r\nf\r\n*2\r\n$3\r\nDEL\r\n$1\r\nc\r\n"
        "*2\r\n$6\r\nSELECT\r\n$1\r\n1\r\n*3\r\n$3\r\nDEL\r\n$1\r\nd\r\n$1\r\ne\r\n"
        "*3\r\n$3\r\nDEL\r\n$1\r\nf\r\n$1\r\ng\r\n");
  // No transaction, and the stream stays in db 1.
  CHECK(encode(enc, {{1, {"DEL", "z"}}}) == "*2\r\n$3\r\nDEL\r\n$1\r\nz\r\n");
  // A run longer than kMaxJoinedKeys goes as several DELs.
  std::vector<EffectRecord> many;
  for (size_t i = 0; i < EffectEncoder::kMaxJoinedKeys + 1; ++i) many.push_back({1, {"DEL", "k"}});
  out.clear();
  enc.encode_each(many, out);
  const std::string joined_header = "*" + std::to_string(EffectEncoder::kMaxJoinedKeys + 1) + "\r\n$3\r\nDEL\r\n";
  CHECK(out.starts_with(joined_header));
  CHECK(out.ends_with("*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n"));
  CHECK(out.size() == joined_header.size() + EffectEncoder::kMaxJoinedKeys * 7 + 20);
}

}  // namespace
}  // namespace lawnkv::test
