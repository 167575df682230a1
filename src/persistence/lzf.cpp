#include "persistence/lzf.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace lawnkv::persistence {

namespace {

constexpr size_t kMaxLiteral = 32;
constexpr size_t kMaxOffset = 8192;
constexpr size_t kMaxMatch = 264;  // 7 + 255 + 2
constexpr size_t kMinMatch = 3;
constexpr int kHashBits = 14;

uint32_t hash3(const unsigned char* p) {
  const uint32_t v = (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
  return (v * 2654435761U) >> (32 - kHashBits);
}

}  // namespace

bool lzf_compress(std::string_view in, size_t max_out, std::string& out) {
  out.clear();
  out.reserve(max_out);
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  // Position + 1 of the last place each 3-byte hash was seen (0: never).
  std::vector<uint32_t> last(size_t{1} << kHashBits, 0);
  size_t lit_start = 0;  // first byte of the pending literal run
  size_t i = 0;

  // Emits the literals [lit_start, end) in runs of at most 32.
  auto flush_literals = [&](size_t end) {
    while (lit_start < end) {
      const size_t run = end - lit_start < kMaxLiteral ? end - lit_start : kMaxLiteral;
      out.push_back(static_cast<char>(run - 1));
      out.append(in.data() + lit_start, run);
      lit_start += run;
    }
    return out.size() <= max_out;
  };

  while (i + kMinMatch <= n) {
    const uint32_t h = hash3(src + i);
    const size_t cand = last[h];
    last[h] = static_cast<uint32_t>(i + 1);
    if (cand != 0) {
      const size_t ref = cand - 1;
      const size_t off = i - ref - 1;
      if (off < kMaxOffset && std::memcmp(src + ref, src + i, kMinMatch) == 0) {
        size_t len = kMinMatch;
        const size_t limit = n - i < kMaxMatch ? n - i : kMaxMatch;
        while (len < limit && src[ref + len] == src[i + len]) ++len;
        if (!flush_literals(i)) return false;
        const size_t l = len - 2;
        if (l < 7) {
          out.push_back(static_cast<char>((l << 5) | (off >> 8)));
        } else {
          out.push_back(static_cast<char>((7 << 5) | (off >> 8)));
          out.push_back(static_cast<char>(l - 7));
        }
        out.push_back(static_cast<char>(off & 0xff));
        if (out.size() > max_out) return false;
        // Remember the positions inside the match too, so later repeats of
        // them are found (one hash per byte: what the format rewards).
        const size_t end = i + len;
        for (size_t k = i + 1; k + kMinMatch <= n && k < end; ++k)
          last[hash3(src + k)] = static_cast<uint32_t>(k + 1);
        i = end;
        lit_start = i;
        continue;
      }
    }
    ++i;
  }
  return flush_literals(n);
}

bool lzf_decompress(std::string_view in, char* out, size_t out_len) {
  const auto* ip = reinterpret_cast<const unsigned char*>(in.data());
  const unsigned char* const end = ip + in.size();
  size_t op = 0;
  while (ip < end) {
    const unsigned ctrl = *ip++;
    if (ctrl < 32) {
      const size_t run = ctrl + 1;
      if (static_cast<size_t>(end - ip) < run || out_len - op < run) return false;
      std::memcpy(out + op, ip, run);
      ip += run;
      op += run;
      continue;
    }
    size_t len = ctrl >> 5;
    if (len == 7) {
      if (ip == end) return false;
      len += *ip++;
    }
    if (ip == end) return false;
    const size_t back = ((size_t(ctrl & 0x1f) << 8) | *ip++) + 1;
    len += 2;
    if (back > op || out_len - op < len) return false;
    // Byte by byte: the source may overlap the bytes being written.
    for (size_t k = 0; k < len; ++k, ++op) out[op] = out[op - back];
  }
  return op == out_len;
}

}  // namespace lawnkv::persistence
