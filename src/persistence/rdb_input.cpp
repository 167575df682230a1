#include "persistence/rdb_input.hpp"

#include "core/numbers.hpp"
#include "persistence/lzf.hpp"
#include "persistence/rdb_format.hpp"

namespace lawnkv::persistence {

namespace {
// LZF's best case: a 3-byte item that copies 264 bytes.
constexpr uint64_t kLzfMaxRatio = 88;
}  // namespace

bool RdbInput::fail(std::string why) {
  if (error_.empty()) error_ = why + " at offset " + std::to_string(base_ + pos_);
  return false;
}

bool RdbInput::u8(uint8_t* out) {
  if (failed()) return false;
  if (pos_ >= data_.size()) return fail("unexpected end of file");
  *out = static_cast<uint8_t>(data_[pos_++]);
  return true;
}

bool RdbInput::bytes(size_t n, std::string_view* out) {
  if (failed()) return false;
  if (n > remaining()) return fail("unexpected end of file");
  *out = data_.substr(pos_, n);
  pos_ += n;
  return true;
}

bool RdbInput::len_or_encoding(uint64_t* out, bool* encoded) {
  uint8_t b;
  if (!u8(&b)) return false;
  *encoded = false;
  switch (b >> 6) {
    case 0:
      *out = b & 0x3f;
      return true;
    case 1: {
      uint8_t lo;
      if (!u8(&lo)) return false;
      *out = (uint64_t(b & 0x3f) << 8) | lo;
      return true;
    }
    case 3:
      *encoded = true;
      *out = b & 0x3f;
      return true;
    default:
      break;
  }
  int n;
  if (b == 0x80) n = 4;
  else if (b == 0x81) n = 8;
  else return fail("unknown length encoding " + std::to_string(b));
  std::string_view raw;
  if (!bytes(static_cast<size_t>(n), &raw)) return false;
  uint64_t v = 0;
  for (char c : raw) v = (v << 8) | static_cast<uint8_t>(c);
  *out = v;
  return true;
}

bool RdbInput::len(uint64_t* out) {
  bool encoded;
  if (!len_or_encoding(out, &encoded)) return false;
  if (encoded) return fail("a string encoding where a length was expected");
  return true;
}

bool RdbInput::string(std::string* out) {
  uint64_t n;
  bool encoded;
  if (!len_or_encoding(&n, &encoded)) return false;
  std::string_view raw;
  if (!encoded) {
    if (!bytes(n, &raw)) return false;
    out->assign(raw);
    return true;
  }
  if (n <= 2) {  // an integer of 1, 2 or 4 bytes, little-endian
    const size_t width = size_t{1} << n;
    if (!bytes(width, &raw)) return false;
    uint64_t u = 0;
    for (size_t i = width; i-- > 0;) u = (u << 8) | static_cast<uint8_t>(raw[i]);
    int64_t v;
    if (width == 1) v = static_cast<int8_t>(u);
    else if (width == 2) v = static_cast<int16_t>(u);
    else v = static_cast<int32_t>(u);
    char buf[kLongStrSize];
    out->assign(buf, ll_to_chars(buf, v));
    return true;
  }
  if (n != 3) return fail("unknown string encoding " + std::to_string(n));
  uint64_t clen, ulen;
  if (!len(&clen) || !len(&ulen)) return false;
  if (clen > remaining()) return fail("unexpected end of file");
  if (ulen > clen * kLzfMaxRatio) return fail("LZF string longer than its data can hold");
  if (!bytes(clen, &raw)) return false;
  out->resize(ulen);
  if (!lzf_decompress(raw, out->data(), ulen)) return fail("corrupt LZF string");
  return true;
}

bool RdbInput::ms(int64_t* out) {
  std::string_view raw;
  if (!bytes(8, &raw)) return false;
  uint64_t u = 0;
  for (size_t i = 8; i-- > 0;) u = (u << 8) | static_cast<uint8_t>(raw[i]);
  *out = static_cast<int64_t>(u);
  return true;
}

bool RdbInput::u32le(uint32_t* out) {
  std::string_view raw;
  if (!bytes(4, &raw)) return false;
  uint32_t u = 0;
  for (size_t i = 4; i-- > 0;) u = (u << 8) | static_cast<uint8_t>(raw[i]);
  *out = u;
  return true;
}

bool RdbInput::module_uint(uint64_t* out) {
  uint64_t op;
  if (!len(&op)) return false;
  if (op != rdb::kModuleUint) return fail("module value: expected an unsigned integer");
  return len(out);
}

bool RdbInput::module_string(std::string* out) {
  uint64_t op;
  if (!len(&op)) return false;
  if (op != rdb::kModuleString) return fail("module value: expected a string");
  return string(out);
}

}  // namespace lawnkv::persistence
