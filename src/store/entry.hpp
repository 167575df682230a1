#pragma once
// One key of the keyspace: its name, its value and, when it may expire, its
// expiry Timer, in ONE block of the 32-bit-link heap (core/arena.hpp).
//
//   [Timer, 16 B]   only in entries made with a timer slot; the index links it
//   next_in_bucket  4 B   the dictionary's chain (a 32-bit link)
//   type, flags     2 B   the type (bits 0-2), the idle class (bits 3-6,
//                         store/idle_class.hpp) and the text-encoding
//                         mark; flags: layout bits, the eviction use
//                         counter, the raw-encoding mark
//   key_len         1 B   inline key length (a long key: see kKeyOnHeap)
//   value_len       1 B   inline value length (a long value: kValueOnHeap)
//   key             key_len bytes, or a std::string* when kKeyOnHeap
//   value           value_len bytes, or a std::string* (kValueOnHeap), or an
//                   Object* (any type but a string)
//
// A 16-byte name with a 16-byte value is a 40-byte block, 56 with a timer
// slot: no per-block header, no size-class rounding, no cached hash (the
// dictionary compares lengths, then bytes). Names and values longer than
// kInlineMax bytes live in their own std::string, whose growth is amortised
// (APPEND), at the cost of one pointer and one more allocation.
//
// An entry never changes size in place: a new value of another length, or a
// timer for an entry made without one, means a new block (Db does that, and
// moves the dictionary link and the Timer's place in the index to it). So an
// Entry* held across a Db call that takes an Entry& may be stale: use the one
// the call returns.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "core/arena.hpp"
#include "expiry/index.hpp"

namespace lawnkv::store {

// kHashField is not a key's type: it marks a hash field with a TTL, a string
// entry whose value part starts with its hash's Object* (Entry::make_field),
// so that the expiry index, which holds keys and such fields alike, can tell
// them apart and find the field's hash.
enum class Type : uint8_t { kString, kDehydrator, kHash, kHashField, kSet, kList, kZSet, kStream };

class Db;
class Entry;

// A value that is not a string (a dehydrator, ...). The type that owns it
// knows its concrete class.
class Object {
 public:
  virtual ~Object() = default;
  virtual Type type() const = 0;
  // Bytes this value holds beyond the Entry itself (MEMORY USAGE, INFO).
  virtual size_t memory_bytes() const = 0;
  // A deep copy holding the same contents (COPY).
  virtual std::unique_ptr<Object> clone() const = 0;
  // OBJECT ENCODING's name for the representation in use, as Redis 7.0
  // names its own ("listpack", "hashtable", "intset"...).
  virtual std::string_view encoding() const = 0;

  // Values with parts that expire on their own (hash fields with a TTL)
  // keep their parts' timers in their db's expiry index. The Db tells them
  // where they are stored: after their key is added to db under key (a new
  // key, RENAME, MOVE, COPY) they schedule their parts there; before it is
  // taken out (DEL, RENAME or MOVE away, expiry, eviction, FLUSHDB) they
  // cancel them.
  virtual void on_attach(Db& db, std::string_view key) {}
  virtual void on_detach(Db& db) {}
  // The key the value is stored under, while attached.
  virtual std::string_view attached_key() const { return {}; }
  // The Db reaped part's timer (its deadline passed): remove the part.
  // Returns true if the value is now empty (the Db then deletes the key).
  virtual bool expire_part(Entry& part) { return false; }
  // Starts the cache misses expire_part(part) will meet (no wait): the
  // reaper calls it for a batch of parts before it expires the first.
  virtual void prefetch_part(const Entry& part) const {}
};

class Entry;
struct EntryDeleter {
  void operator()(Entry* e) const;
};
// Owns an entry that is not in a dictionary (detached, or being built).
using EntryPtr = std::unique_ptr<Entry, EntryDeleter>;

class Entry {
 public:
  // Names and values up to this length are stored in the block itself.
  static constexpr size_t kInlineMax = 255;

  // A new block holding key and a copy of value (or obj); with_timer reserves
  // the Timer that a deadline needs.
  static EntryPtr make_string(std::string_view key, std::string_view value, bool with_timer);
  static EntryPtr make_object(std::string_view key, std::unique_ptr<Object> obj, bool with_timer);
  // A new block named key holding a deep copy of src's value (COPY).
  static EntryPtr make_copy(const Entry& src, std::string_view key, bool with_timer);
  // A new block named key that takes over src's value (RENAME, adding a
  // timer slot). src may then only be destroyed: it no longer owns what its
  // value part points to. The Timer is not carried over: the caller moves
  // its place in the index.
  static EntryPtr take_value(Entry& src, std::string_view key, bool with_timer);
  // A hash field with a timer slot: name, value, and the hash it belongs to
  // (type kHashField).
  static EntryPtr make_field(std::string_view name, std::string_view value, Object* owner);

  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

  std::string_view key() const {
    const char* p = data();
    return (flags_ & kKeyOnHeap) ? std::string_view(*load<std::string*>(p)) : std::string_view(p, key_len_);
  }
  Type type() const { return static_cast<Type>(kind_ & kTypeBits); }
  // The value of a string entry (or of a kHashField).
  std::string_view str() const {
    const char* p = string_data();
    return (flags_ & kValueOnHeap) ? std::string_view(*load<std::string*>(p)) : std::string_view(p, value_len_);
  }
  // The value of any other type.
  Object* obj() const { return holds_string() ? nullptr : load<Object*>(value_data()); }
  // A kHashField's hash.
  Object* field_owner() const { return type() == Type::kHashField ? load<Object*>(value_data()) : nullptr; }

  // Replaces a string value in place when that needs no new block (same
  // inline length, or a value already on the heap that stays long: in its
  // buffer while that is not much larger, core/trimmed_string.hpp); false
  // otherwise, and nothing changed.
  bool assign_in_place(std::string_view value);
  // The heap string of a long string value (nullptr if the value is inline):
  // APPEND and SETRANGE edit it in place.
  std::string* heap_str() { return (flags_ & kValueOnHeap) ? load<std::string*>(string_data()) : nullptr; }
  // The bytes of a string value, inline or on the heap, to overwrite where
  // they are (SETBIT, BITFIELD): their length cannot change this way.
  char* str_bytes() { return (flags_ & kValueOnHeap) ? load<std::string*>(string_data())->data() : string_data(); }

  // The eviction policy's use counter (store/eviction.hpp), 0..kMaxUse,
  // kept in spare bits of the header: it costs no memory per key. Set
  // through Db::set_use (or an access), which counts the keys at 0.
  static constexpr uint8_t kMaxUse = 7;
  uint8_t use() const { return (flags_ >> kUseShift) & kMaxUse; }
  // How long the key has gone unused, 0..kMaxIdleClass, in spare bits of
  // the header (store/idle_class.hpp): 0 after an access, raised by the
  // keyspace's aging passes.
  static constexpr uint8_t kMaxIdleClass = 15;
  uint8_t idle_class() const { return (kind_ & kIdleBits) >> kIdleShift; }
  // An access: class 0. Writes the header only when it changes, so that
  // reading a hot key does not dirty its cache line.
  void clear_idle() {
    if (kind_ & kIdleBits) kind_ = static_cast<uint8_t>(kind_ & ~kIdleBits);
  }
  void set_idle_class(uint8_t c) {
    kind_ = static_cast<uint8_t>((kind_ & ~kIdleBits) | ((c & kMaxIdleClass) << kIdleShift));
  }
  // OBJECT ENCODING: a string edited in place (APPEND, SETRANGE) is "raw"
  // whatever its length, as Redis's are; any new value clears the mark.
  bool raw_encoding() const { return flags_ & kRawEncoding; }
  void set_raw_encoding(bool raw) {
    flags_ = static_cast<uint8_t>(raw ? (flags_ | kRawEncoding) : (flags_ & ~kRawEncoding));
  }
  // OBJECT ENCODING: a string stored as text without trying the integer
  // form, as Redis stores INCRBYFLOAT's result, is "embstr" (or "raw" when
  // long) even when it reads as an integer; any new value clears the mark.
  bool text_encoding() const { return kind_ & kTextEncoding; }
  void set_text_encoding(bool text) {
    kind_ = static_cast<uint8_t>(text ? (kind_ | kTextEncoding) : (kind_ & ~kTextEncoding));
  }

  bool has_timer_slot() const { return flags_ & kTimerSlot; }
  expiry::Timer* timer() { return has_timer_slot() ? reinterpret_cast<expiry::Timer*>(this) - 1 : nullptr; }
  const expiry::Timer* timer() const {
    return has_timer_slot() ? reinterpret_cast<const expiry::Timer*>(this) - 1 : nullptr;
  }
  bool has_ttl() const { return has_timer_slot() && expiry::Index::scheduled(timer()); }
  // Absolute Unix ms; meaningful while has_ttl() (the key exists while
  // now <= deadline).
  int64_t deadline() const { return timer()->deadline; }
  bool expired_at(int64_t now_ms) const { return has_ttl() && now_ms > deadline(); }

  // The entry whose Timer the expiry index hands back: the block starts
  // with the Timer, the Entry follows it.
  static Entry* from_timer(expiry::Timer* t) { return reinterpret_cast<Entry*>(t + 1); }

  // Bytes of the arena block, and bytes held outside it (long names and
  // values, an object's contents).
  size_t block_bytes() const;
  size_t outside_bytes() const;

  arena::Ref<Entry> next_in_bucket;  // the dictionary's chain

 private:
  friend struct EntryDeleter;
  friend class Db;
  friend class UseCounter;
  void set_use(uint8_t u) { flags_ = static_cast<uint8_t>((flags_ & ~kUseMask) | (u << kUseShift)); }
  enum Flags : uint8_t {
    kTimerSlot = 1,
    kKeyOnHeap = 2,
    kValueOnHeap = 4,
    kValueMoved = 8,
    kUseMask = 0x70,  // bits 4-6: use()
    kRawEncoding = 0x80,
  };
  static constexpr int kUseShift = 4;
  // kind_: the Type in bits 0-2, the idle class in bits 3-6, the
  // text-encoding mark in bit 7.
  static constexpr uint8_t kTypeBits = 0x07;
  static constexpr int kIdleShift = 3;
  static constexpr uint8_t kIdleBits = 0x78;
  static constexpr uint8_t kTextEncoding = 0x80;
  static_assert(static_cast<uint8_t>(Type::kStream) <= kTypeBits, "every Type fits the type bits");

  Entry() = default;
  // Allocates a block for a name of key_size bytes and a value part of
  // value_part bytes, and fills the header and the name.
  static Entry* allocate(std::string_view key, size_t value_part, bool with_timer);
  static void destroy(Entry* e);
  // Writes a name or value at `at`: inline (setting *inline_len) when short,
  // else as a pointer to a new std::string (setting on_heap).
  void put(char* at, std::string_view bytes, uint8_t* inline_len, Flags on_heap);

  template <class T>
  static T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
  template <class T>
  static void store(char* p, T v) {
    std::memcpy(p, &v, sizeof(T));
  }
  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  size_t key_part() const { return (flags_ & kKeyOnHeap) ? sizeof(std::string*) : key_len_; }
  bool holds_string() const { return type() == Type::kString || type() == Type::kHashField; }
  // A kHashField's owner pointer comes first in its value part.
  size_t owner_part() const { return type() == Type::kHashField ? sizeof(Object*) : 0; }
  size_t value_part() const {
    if (!holds_string()) return sizeof(Object*);
    return owner_part() + ((flags_ & kValueOnHeap) ? sizeof(std::string*) : value_len_);
  }
  char* value_data() { return data() + key_part(); }
  const char* value_data() const { return data() + key_part(); }
  char* string_data() { return value_data() + owner_part(); }
  const char* string_data() const { return value_data() + owner_part(); }

  uint8_t kind_ = static_cast<uint8_t>(Type::kString);
  uint8_t flags_ = 0;
  uint8_t key_len_ = 0;
  uint8_t value_len_ = 0;
};
static_assert(sizeof(Entry) == 8, "the fixed part of a key's block");

}  // namespace lawnkv::store
