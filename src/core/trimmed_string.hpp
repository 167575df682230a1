#pragma once
// Replacing a heap string's bytes with a new value (SET over a long string,
// HSET of a long field value): the old buffer is kept only while it is not
// much larger than the new value, as Redis trims a string whose free space
// exceeds a tenth of its length (trimStringObjectIfNeeded). Keeping a 1 MB
// buffer for a 1 KB value would hold the memory of a value's largest size
// for as long as the key lives. Growth in place (APPEND, SETRANGE) does not
// come here: it keeps std::string's amortised doubling.

#include <string>
#include <string_view>

namespace lawnkv {

// Whether a buffer of capacity bytes may hold a value of len bytes.
inline bool fits_trimmed(size_t capacity, size_t len) { return len <= capacity && capacity - len <= len / 10; }

// s = value, in s's buffer when it fits trimmed, else in one of value's size.
inline void assign_trimmed(std::string& s, std::string_view value) {
  if (fits_trimmed(s.capacity(), value.size())) {
    s.assign(value);
  } else {
    std::string fresh(value);
    s.swap(fresh);
  }
}

}  // namespace lawnkv
