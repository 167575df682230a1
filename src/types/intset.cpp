#include "types/intset.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace lawnkv::types {

namespace {

int64_t load(const char* data, size_t i, unsigned width) {
  switch (width) {
    case 2: {
      int16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return v;
    }
    case 4: {
      int32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, data + i * 8, 8);
      return v;
    }
  }
}

void store(char* data, size_t i, unsigned width, int64_t v) {
  switch (width) {
    case 2: {
      const int16_t w = static_cast<int16_t>(v);
      std::memcpy(data + i * 2, &w, 2);
      return;
    }
    case 4: {
      const int32_t w = static_cast<int32_t>(v);
      std::memcpy(data + i * 4, &w, 4);
      return;
    }
    default:
      std::memcpy(data + i * 8, &v, 8);
  }
}

}  // namespace

unsigned IntSet::width_of(int64_t v) {
  if (v >= INT16_MIN && v <= INT16_MAX) return 2;
  if (v >= INT32_MIN && v <= INT32_MAX) return 4;
  return 8;
}

IntSet::~IntSet() { std::free(block_); }

IntSet::IntSet(const IntSet& other) {
  if (!other.block_) return;
  const size_t bytes = other.memory_bytes();
  block_ = static_cast<char*>(std::malloc(bytes));
  if (!block_) throw std::bad_alloc();
  std::memcpy(block_, other.block_, bytes);
}

IntSet& IntSet::operator=(IntSet&& other) noexcept {
  std::swap(block_, other.block_);
  return *this;
}

int64_t IntSet::at(size_t i) const { return load(data(), i, width()); }

size_t IntSet::search(int64_t v, bool* found) const {
  *found = false;
  const size_t n = size();
  if (n == 0) return 0;
  const unsigned w = width();
  const char* d = data();
  // Appends and prepends are common (ascending ids): check the ends first.
  if (v > load(d, n - 1, w)) return n;
  if (v < load(d, 0, w)) return 0;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int64_t m = load(d, mid, w);
    if (m < v) {
      lo = mid + 1;
    } else if (m > v) {
      hi = mid;
    } else {
      *found = true;
      return mid;
    }
  }
  return lo;
}

bool IntSet::contains(int64_t v) const {
  if (width_of(v) > width()) return false;
  bool found;
  search(v, &found);
  return found;
}

void IntSet::resize(size_t length, unsigned width) {
  void* p = std::realloc(block_, sizeof(Header) + length * width);
  if (!p) throw std::bad_alloc();
  block_ = static_cast<char*>(p);
  header()->length = static_cast<uint32_t>(length);
  header()->width = static_cast<uint8_t>(width);
}

void IntSet::put(size_t i, int64_t v) { store(data(), i, width(), v); }

void IntSet::upgrade_and_add(int64_t v) {
  const unsigned old_width = width();
  const size_t n = size();
  resize(n + 1, width_of(v));
  // From the back, so no element is overwritten before it is read; a
  // negative v goes first, so everything moves up by one.
  const size_t shift = v < 0 ? 1 : 0;
  for (size_t i = n; i-- > 0;) put(i + shift, load(data(), i, old_width));
  put(v < 0 ? 0 : n, v);
}

bool IntSet::insert(int64_t v) {
  if (!block_) {
    resize(1, width_of(v));
    put(0, v);
    return true;
  }
  if (width_of(v) > width()) {
    upgrade_and_add(v);  // out of the current range: never present
    return true;
  }
  bool found;
  const size_t pos = search(v, &found);
  if (found) return false;
  const size_t n = size();
  resize(n + 1, width());
  char* d = data();
  std::memmove(d + (pos + 1) * width(), d + pos * width(), (n - pos) * width());
  put(pos, v);
  return true;
}

void IntSet::erase_at(size_t i) {
  const size_t n = size();
  const unsigned w = width();
  char* d = data();
  std::memmove(d + i * w, d + (i + 1) * w, (n - i - 1) * w);
  if (n == 1) return clear();
  resize(n - 1, w);
}

bool IntSet::erase(int64_t v) {
  if (width_of(v) > width()) return false;
  bool found;
  const size_t pos = search(v, &found);
  if (!found) return false;
  erase_at(pos);
  return true;
}

void IntSet::clear() {
  std::free(block_);
  block_ = nullptr;
}

}  // namespace lawnkv::types
