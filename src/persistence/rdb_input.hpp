#pragma once
// Reading RDB's encodings (rdb_output.hpp draws them) from bytes in memory,
// for a file that may be truncated, corrupt or hostile: every read checks
// what is left, no length is trusted for an allocation before the bytes it
// promises are there (an LZF string may expand at most 88 times: a 3-byte
// reference yields 264 bytes), and the first failure is kept with the
// offset where it happened. After a failure every read returns false.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::persistence {

class RdbInput {
 public:
  explicit RdbInput(std::string_view data) : data_(data) {}

  // Reads data from pos on, forgetting any failure; base: where data starts
  // in the whole image (for messages). An image loaded as it arrives
  // (RdbStreamLoad) goes back to the last whole record this way.
  void reset(std::string_view data, size_t pos, uint64_t base) {
    data_ = data;
    pos_ = pos;
    base_ = base;
    error_.clear();
  }

  bool u8(uint8_t* out);
  // n raw bytes, viewed in place.
  bool bytes(size_t n, std::string_view* out);
  // A length; an encoded string's special form (0xC0..0xC3) is an error.
  bool len(uint64_t* out);
  // A string in any of its forms (integer, LZF, raw), into out.
  bool string(std::string* out);
  // 8 bytes little-endian.
  bool ms(int64_t* out);
  // 4 bytes little-endian (seconds, RDB_OPCODE_EXPIRETIME).
  bool u32le(uint32_t* out);
  // Module items (RDB_TYPE_MODULE_2): the opcode must be the one expected.
  bool module_uint(uint64_t* out);
  bool module_string(std::string* out);

  // Records why the input is refused (the first reason wins) and returns
  // false, for callers' one-line `return in.fail("...")`.
  bool fail(std::string why);
  bool failed() const { return !error_.empty(); }
  // "<why> at offset N" of the first failure.
  const std::string& error() const { return error_; }
  size_t offset() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  // A length, or (encoded) the special form's low 6 bits.
  bool len_or_encoding(uint64_t* out, bool* encoded);

  std::string_view data_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  std::string error_;
};

}  // namespace lawnkv::persistence
