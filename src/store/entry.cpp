#include "store/entry.hpp"

#include <new>

#include "core/trimmed_string.hpp"

namespace lawnkv::store {

namespace {
constexpr size_t kTimerBytes = sizeof(expiry::Timer);

size_t part_for(size_t len) { return len <= Entry::kInlineMax ? len : sizeof(std::string*); }
}  // namespace

void EntryDeleter::operator()(Entry* e) const { Entry::destroy(e); }

Entry* Entry::allocate(std::string_view key, size_t value_part, bool with_timer) {
  const size_t head = with_timer ? kTimerBytes : 0;
  const size_t bytes = head + sizeof(Entry) + part_for(key.size()) + value_part;
  char* block = static_cast<char*>(arena::allocate(bytes));
  if (with_timer) new (block) expiry::Timer();
  Entry* e = new (block + head) Entry();
  if (with_timer) e->flags_ |= kTimerSlot;
  e->put(e->data(), key, &e->key_len_, kKeyOnHeap);
  return e;
}

void Entry::put(char* at, std::string_view bytes, uint8_t* inline_len, Flags on_heap) {
  if (bytes.size() <= kInlineMax) {
    *inline_len = static_cast<uint8_t>(bytes.size());
    // An empty view may carry a null pointer, which memcpy must not get.
    if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
  } else {
    flags_ |= on_heap;
    store(at, new std::string(bytes));
  }
}

EntryPtr Entry::make_string(std::string_view key, std::string_view value, bool with_timer) {
  Entry* e = allocate(key, part_for(value.size()), with_timer);
  e->put(e->value_data(), value, &e->value_len_, kValueOnHeap);
  return EntryPtr(e);
}

EntryPtr Entry::make_field(std::string_view name, std::string_view value, Object* owner) {
  Entry* e = allocate(name, sizeof(Object*) + part_for(value.size()), true);
  e->kind_ = static_cast<uint8_t>(Type::kHashField);
  store(e->value_data(), owner);
  e->put(e->string_data(), value, &e->value_len_, kValueOnHeap);
  return EntryPtr(e);
}

EntryPtr Entry::make_object(std::string_view key, std::unique_ptr<Object> obj, bool with_timer) {
  Entry* e = allocate(key, sizeof(Object*), with_timer);
  e->kind_ = static_cast<uint8_t>(obj->type());
  store(e->value_data(), obj.release());
  return EntryPtr(e);
}

EntryPtr Entry::make_copy(const Entry& src, std::string_view key, bool with_timer) {
  if (src.holds_string()) {
    // The copy keeps the encoding marks, as Redis's dupStringObject keeps
    // the encoding.
    EntryPtr e = make_string(key, src.str(), with_timer);
    e->set_raw_encoding(src.raw_encoding());
    e->set_text_encoding(src.text_encoding());
    return e;
  }
  return make_object(key, src.obj()->clone(), with_timer);
}

EntryPtr Entry::take_value(Entry& src, std::string_view key, bool with_timer) {
  Entry* e = allocate(key, src.value_part(), with_timer);
  e->kind_ = src.kind_;
  e->flags_ |= src.flags_ & (kValueOnHeap | kUseMask | kRawEncoding);
  e->value_len_ = src.value_len_;
  std::memcpy(e->value_data(), src.value_data(), src.value_part());
  // src keeps its lengths, so destroy() frees the block at its true size,
  // but not the heap string or object, now e's.
  src.flags_ |= kValueMoved;
  return EntryPtr(e);
}

bool Entry::assign_in_place(std::string_view value) {
  if (!holds_string()) return false;
  set_raw_encoding(false);
  set_text_encoding(false);
  if (std::string* s = heap_str()) {
    if (value.size() <= kInlineMax) return false;
    assign_trimmed(*s, value);
    return true;
  }
  if (value.size() != value_len_) return false;
  if (!value.empty()) std::memcpy(string_data(), value.data(), value.size());
  return true;
}

size_t Entry::block_bytes() const {
  const size_t bytes = (has_timer_slot() ? kTimerBytes : 0) + sizeof(Entry) + key_part() + value_part();
  return arena::block_bytes(bytes);
}

size_t Entry::outside_bytes() const {
  size_t n = 0;
  if (flags_ & kKeyOnHeap) n += sizeof(std::string) + load<std::string*>(data())->capacity() + 1;
  if (!holds_string()) {
    n += obj()->memory_bytes();
  } else if (flags_ & kValueOnHeap) {
    n += sizeof(std::string) + load<std::string*>(string_data())->capacity() + 1;
  }
  return n;
}

void Entry::destroy(Entry* e) {
  if (!e) return;
  const size_t bytes = e->block_bytes();
  if (e->flags_ & kKeyOnHeap) delete load<std::string*>(e->data());
  if (e->flags_ & kValueMoved) {
    // e's value belongs to the block take_value() made.
  } else if (!e->holds_string()) {
    delete e->obj();
  } else if (e->flags_ & kValueOnHeap) {
    delete load<std::string*>(e->string_data());
  }
  void* block = e->has_timer_slot() ? static_cast<void*>(e->timer()) : static_cast<void*>(e);
  arena::deallocate(block, bytes);
}

}  // namespace lawnkv::store
