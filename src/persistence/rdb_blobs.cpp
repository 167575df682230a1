#include "persistence/rdb_blobs.hpp"

#include <cstdint>

#include "core/numbers.hpp"

namespace lawnkv::persistence {

namespace {

uint64_t read_le(std::string_view s, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = width; i-- > 0;) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// v's low `bits` bits as a signed number.
int64_t sign_extend(uint64_t v, int bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  v &= (bits == 64) ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}

std::string decimal(int64_t v) {
  char buf[kLongStrSize];
  return std::string(buf, ll_to_chars(buf, v));
}

// Bytes a listpack entry of entry_len bytes spends on its back length.
size_t backlen_size(size_t entry_len) {
  if (entry_len < 128) return 1;
  if (entry_len < 16384) return 2;
  if (entry_len < 2097152) return 3;
  if (entry_len < 268435456) return 4;
  return 5;
}

}  // namespace

bool decode_intset(std::string_view blob, std::vector<std::string>* out) {
  if (blob.size() < 8) return false;
  const uint64_t width = read_le(blob, 0, 4);
  const uint64_t count = read_le(blob, 4, 4);
  if (width != 2 && width != 4 && width != 8) return false;
  if (blob.size() - 8 != count * width) return false;
  out->clear();
  out->reserve(count);
  for (uint64_t i = 0; i < count; ++i)
    out->push_back(decimal(sign_extend(read_le(blob, 8 + i * width, width), static_cast<int>(width * 8))));
  return true;
}

bool decode_listpack(std::string_view blob, std::vector<std::string>* out) {
  if (blob.size() < 7 || read_le(blob, 0, 4) != blob.size()) return false;
  const uint64_t declared = read_le(blob, 4, 2);
  out->clear();
  size_t p = 6;
  while (true) {
    if (p >= blob.size()) return false;
    const auto b = static_cast<uint8_t>(blob[p]);
    if (b == 0xFF) break;
    const size_t left = blob.size() - p;
    size_t head, len = 0;  // encoding bytes, then string bytes
    bool is_int = false;
    int64_t v = 0;
    auto need = [&](size_t n) { return n <= left; };
    if ((b & 0x80) == 0) {
      head = 1, is_int = true, v = b & 0x7f;
    } else if ((b & 0xC0) == 0x80) {
      head = 1, len = b & 0x3f;
    } else if ((b & 0xE0) == 0xC0) {
      if (!need(2)) return false;
      head = 2, is_int = true;
      v = sign_extend((uint64_t(b & 0x1f) << 8) | static_cast<uint8_t>(blob[p + 1]), 13);
    } else if ((b & 0xF0) == 0xE0) {
      if (!need(2)) return false;
      head = 2, len = (size_t(b & 0x0f) << 8) | static_cast<uint8_t>(blob[p + 1]);
    } else if (b == 0xF0) {
      if (!need(5)) return false;
      head = 5, len = read_le(blob, p + 1, 4);
    } else if (b >= 0xF1 && b <= 0xF4) {
      static constexpr size_t kWidth[] = {2, 3, 4, 8};
      const size_t w = kWidth[b - 0xF1];
      if (!need(1 + w)) return false;
      head = 1 + w, is_int = true;
      v = sign_extend(read_le(blob, p + 1, w), static_cast<int>(w * 8));
    } else {
      return false;
    }
    const size_t entry = head + len;
    if (len > left || entry > left || backlen_size(entry) > left - entry) return false;
    out->push_back(is_int ? decimal(v) : std::string(blob.substr(p + head, len)));
    p += entry + backlen_size(entry);
  }
  if (p != blob.size() - 1) return false;
  // 65535: "count unknown", kept when the list is that long or longer.
  return declared == 65535 ? out->size() >= 65535 : declared == out->size();
}

bool decode_ziplist(std::string_view blob, std::vector<std::string>* out) {
  if (blob.size() < 11 || read_le(blob, 0, 4) != blob.size()) return false;
  const uint64_t declared = read_le(blob, 8, 2);
  out->clear();
  size_t p = 10;
  while (true) {
    if (p >= blob.size()) return false;
    if (static_cast<uint8_t>(blob[p]) == 0xFF) break;
    // The previous entry's length: 1 byte, or 0xFE and 4 bytes.
    p += static_cast<uint8_t>(blob[p]) == 0xFE ? 5 : 1;
    if (p >= blob.size()) return false;
    const auto b = static_cast<uint8_t>(blob[p]);
    const size_t left = blob.size() - p;
    size_t head, len = 0;
    bool is_int = false;
    int64_t v = 0;
    switch (b >> 6) {
      case 0:
        head = 1, len = b & 0x3f;
        break;
      case 1:
        if (left < 2) return false;
        head = 2, len = (size_t(b & 0x3f) << 8) | static_cast<uint8_t>(blob[p + 1]);
        break;
      case 2:
        if (left < 5) return false;
        head = 5;
        len = size_t(static_cast<uint8_t>(blob[p + 1])) << 24 | size_t(static_cast<uint8_t>(blob[p + 2])) << 16 |
              size_t(static_cast<uint8_t>(blob[p + 3])) << 8 | static_cast<uint8_t>(blob[p + 4]);
        break;
      default: {
        is_int = true;
        size_t w;
        if (b == 0xC0) w = 2;
        else if (b == 0xD0) w = 4;
        else if (b == 0xE0) w = 8;
        else if (b == 0xF0) w = 3;
        else if (b == 0xFE) w = 1;
        else if (b >= 0xF1 && b <= 0xFD) w = 0, v = (b & 0x0f) - 1;
        else return false;
        if (left < 1 + w) return false;
        head = 1 + w;
        if (w) v = sign_extend(read_le(blob, p + 1, w), static_cast<int>(w * 8));
      }
    }
    if (len > left || head + len > left) return false;
    out->push_back(is_int ? decimal(v) : std::string(blob.substr(p + head, len)));
    p += head + len;
  }
  if (p != blob.size() - 1) return false;
  return declared == 65535 ? out->size() >= 65535 : declared == out->size();
}

}  // namespace lawnkv::persistence
