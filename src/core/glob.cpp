#include "core/glob.hpp"

namespace lawnkv {

namespace {

constexpr int kMaxNesting = 1000;

// The C locale's tolower on a (signed) char: only A-Z change.
int fold(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

// Bytes as Redis sees them: plain (signed) char values.
int byte_at(const char* p) { return static_cast<signed char>(*p); }

bool chars_equal(const char* a, const char* b, bool nocase) {
  return nocase ? fold(byte_at(a)) == fold(byte_at(b)) : *a == *b;
}

// One level of the matcher. pattern/string are consumed from the front;
// skip_longer is shared by all levels of one top-level call.
bool match_impl(const char* p, int plen, const char* s, int slen, bool nocase,
                bool* skip_longer, int nesting) {
  if (nesting > kMaxNesting) return false;

  while (plen > 0 && slen > 0) {
    switch (*p) {
      case '*': {
        while (plen > 1 && p[1] == '*') {
          p++;
          plen--;
        }
        if (plen == 1) return true;  // a trailing '*' takes the rest
        while (slen > 0) {
          if (match_impl(p + 1, plen - 1, s, slen, nocase, skip_longer, nesting + 1)) {
            return true;
          }
          if (*skip_longer) return false;
          s++;
          slen--;
        }
        // The rest of the pattern matches at no position of the rest of the
        // string, so no earlier '*' can help by taking more: give up
        // everywhere.
        *skip_longer = true;
        return false;
      }
      case '?':
        s++;
        slen--;
        break;
      case '[': {
        p++;
        plen--;
        bool negate = plen > 0 && *p == '^';
        if (negate) {
          p++;
          plen--;
        }
        bool matched = false;
        while (true) {
          if (plen >= 2 && *p == '\\') {
            p++;
            plen--;
            if (*p == *s) matched = true;
          } else if (plen > 0 && *p == ']') {
            break;
          } else if (plen <= 0) {
            // Unterminated set: step back so the common advance below lands
            // exactly on the end of the pattern.
            p--;
            plen++;
            break;
          } else if (plen >= 3 && p[1] == '-') {
            int start = byte_at(p);
            int end = byte_at(p + 2);
            int c = byte_at(s);
            if (start > end) {
              int t = start;
              start = end;
              end = t;
            }
            if (nocase) {
              start = fold(start);
              end = fold(end);
              c = fold(c);
            }
            p += 2;
            plen -= 2;
            if (c >= start && c <= end) matched = true;
          } else if (chars_equal(p, s, nocase)) {
            matched = true;
          }
          p++;
          plen--;
        }
        if (negate) matched = !matched;
        if (!matched) return false;
        s++;
        slen--;
        break;
      }
      case '\\':
        if (plen >= 2) {
          p++;
          plen--;
        }
        [[fallthrough]];
      default:
        if (!chars_equal(p, s, nocase)) return false;
        s++;
        slen--;
        break;
    }
    p++;
    plen--;
    if (slen == 0) {
      while (plen > 0 && *p == '*') {
        p++;
        plen--;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view s, bool nocase) {
  bool skip_longer = false;
  return match_impl(pattern.data(), static_cast<int>(pattern.size()), s.data(),
                    static_cast<int>(s.size()), nocase, &skip_longer, 0);
}

}  // namespace lawnkv
