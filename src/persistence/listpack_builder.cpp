#include "persistence/listpack_builder.hpp"

namespace lawnkv::persistence {

void ListpackBuilder::backlen(size_t l) {
  // The entry's length in 7-bit groups, most significant first, every byte
  // but the first with its high bit set (read right to left).
  if (l <= 127) {
    body_.push_back(static_cast<char>(l));
  } else if (l < 16383) {
    body_.push_back(static_cast<char>(l >> 7));
    body_.push_back(static_cast<char>((l & 127) | 128));
  } else if (l < 2097151) {
    body_.push_back(static_cast<char>(l >> 14));
    body_.push_back(static_cast<char>(((l >> 7) & 127) | 128));
    body_.push_back(static_cast<char>((l & 127) | 128));
  } else if (l < 268435455) {
    body_.push_back(static_cast<char>(l >> 21));
    body_.push_back(static_cast<char>(((l >> 14) & 127) | 128));
    body_.push_back(static_cast<char>(((l >> 7) & 127) | 128));
    body_.push_back(static_cast<char>((l & 127) | 128));
  } else {
    body_.push_back(static_cast<char>(l >> 28));
    body_.push_back(static_cast<char>(((l >> 21) & 127) | 128));
    body_.push_back(static_cast<char>(((l >> 14) & 127) | 128));
    body_.push_back(static_cast<char>(((l >> 7) & 127) | 128));
    body_.push_back(static_cast<char>((l & 127) | 128));
  }
}

void ListpackBuilder::add(std::string_view s) {
  const size_t start = body_.size();
  const size_t n = s.size();
  if (n < 64) {
    body_.push_back(static_cast<char>(0x80 | n));
  } else if (n < 4096) {
    body_.push_back(static_cast<char>(0xE0 | (n >> 8)));
    body_.push_back(static_cast<char>(n & 0xff));
  } else {
    body_.push_back(static_cast<char>(0xF0));
    for (int i = 0; i < 4; i++) body_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
  body_.append(s);
  backlen(body_.size() - start);
  count_++;
}

void ListpackBuilder::add(int64_t v) {
  const size_t start = body_.size();
  const auto u = static_cast<uint64_t>(v);
  auto le = [&](int bytes) {
    for (int i = 0; i < bytes; i++) body_.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
  };
  if (v >= 0 && v <= 127) {
    body_.push_back(static_cast<char>(v));
  } else if (v >= -4096 && v <= 4095) {
    const uint64_t w = u & 0x1fff;
    body_.push_back(static_cast<char>(0xC0 | (w >> 8)));
    body_.push_back(static_cast<char>(w & 0xff));
  } else if (v >= -32768 && v <= 32767) {
    body_.push_back(static_cast<char>(0xF1));
    le(2);
  } else if (v >= -8388608 && v <= 8388607) {
    body_.push_back(static_cast<char>(0xF2));
    le(3);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    body_.push_back(static_cast<char>(0xF3));
    le(4);
  } else {
    body_.push_back(static_cast<char>(0xF4));
    le(8);
  }
  backlen(body_.size() - start);
  count_++;
}

std::string ListpackBuilder::finish() const {
  const uint32_t total = static_cast<uint32_t>(6 + body_.size() + 1);
  const uint16_t count = count_ >= 65535 ? 65535 : static_cast<uint16_t>(count_);
  std::string out;
  out.reserve(total);
  for (int i = 0; i < 4; i++) out.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
  out.push_back(static_cast<char>(count & 0xff));
  out.push_back(static_cast<char>(count >> 8));
  out.append(body_);
  out.push_back(static_cast<char>(0xFF));
  return out;
}

}  // namespace lawnkv::persistence
