#include "dehydrator/element.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <new>
#include <string>

#include "core/trimmed_string.hpp"

namespace lawnkv::dehydrator {

namespace {
size_t part_for(size_t len) { return len <= Element::kInlineMax ? len : sizeof(std::string*); }

std::string* heap_string(const char* at) {
  std::string* s;
  std::memcpy(&s, at, sizeof(s));
  return s;
}
}  // namespace

uint32_t hash_id(std::string_view id) { return static_cast<uint32_t>(std::hash<std::string_view>{}(id)); }

size_t Element::bytes_for(size_t parts) {
  return std::max(sizeof(Element), sizeof(Element) - sizeof(bytes_) + parts);
}

Element* Element::make(std::string_view id, std::string_view value, uint64_t seq) {
  Element* e = new (arena::allocate(bytes_for(part_for(id.size()) + part_for(value.size())))) Element();
  e->seq = seq;
  e->hash = hash_id(id);
  e->put(e->data(), id, &e->id_len_, kIdOnHeap);
  e->put(e->value_data(), value, &e->value_len_, kValueOnHeap);
  return e;
}

void Element::put(char* at, std::string_view bytes, uint8_t* inline_len, Flags on_heap) {
  if (bytes.size() > kInlineMax) {
    flags_ |= on_heap;
    const std::string* s = new std::string(bytes);
    std::memcpy(at, &s, sizeof(s));
    return;
  }
  *inline_len = static_cast<uint8_t>(bytes.size());
  if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
}

std::string_view Element::part(const char* at, uint8_t inline_len, Flags on_heap) const {
  return (flags_ & on_heap) ? std::string_view(*heap_string(at)) : std::string_view(at, inline_len);
}

bool Element::assign_in_place(std::string_view value) {
  if (flags_ & kValueOnHeap) {
    if (value.size() <= kInlineMax) return false;
    assign_trimmed(*heap_string(value_data()), value);
    return true;
  }
  if (value.size() != value_len_) return false;
  if (!value.empty()) std::memcpy(value_data(), value.data(), value.size());
  return true;
}

size_t Element::block_bytes() const {
  return arena::block_bytes(bytes_for(id_part() + value_part()));
}

size_t Element::outside_bytes() const {
  size_t n = 0;
  if (flags_ & kIdOnHeap) n += sizeof(std::string) + heap_string(data())->capacity() + 1;
  if (flags_ & kValueOnHeap) n += sizeof(std::string) + heap_string(value_data())->capacity() + 1;
  return n;
}

void Element::destroy(Element* e) {
  if (!e) return;
  const size_t bytes = bytes_for(e->id_part() + e->value_part());
  if (e->flags_ & kIdOnHeap) delete heap_string(e->data());
  if (e->flags_ & kValueOnHeap) delete heap_string(e->value_data());
  e->~Element();
  arena::deallocate(e, bytes);
}

}  // namespace lawnkv::dehydrator
