#pragma once
// One key of the keyspace: its name, its value and, when it has a TTL, its
// deadline, all reachable from one allocation. The expiry link is embedded
// (intrusive), so scheduling a key's expiry allocates nothing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/arena.hpp"
#include "expiry/index.hpp"

namespace lawnkv::store {

enum class Type : uint8_t { kString, kDehydrator };

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
};

struct Entry {
  // Scheduled in the db's expiry index iff the key has a TTL; then
  // timer.deadline is its deadline in Unix ms (the key exists while
  // now <= deadline).
  expiry::Timer timer;
  Entry* next_in_bucket = nullptr;  // the dictionary's chain
  uint64_t hash = 0;
  std::string key;
  std::string str;               // the value when type == kString
  std::unique_ptr<Object> obj;   // the value otherwise
  Type type = Type::kString;

  bool has_ttl() const { return expiry::Index::scheduled(&timer); }
  int64_t deadline() const { return timer.deadline; }
  bool expired_at(int64_t now_ms) const { return has_ttl() && now_ms > timer.deadline; }

  // The entry whose timer the expiry index hands back. timer is the first
  // member, so the two share an address.
  static Entry* from_timer(expiry::Timer* t) { return reinterpret_cast<Entry*>(t); }

  // Stop-gap until the store's new Entry: the expiry index links only Timers
  // in the arena (expiry/timer.hpp), so every Entry is allocated there.
  static void* operator new(size_t bytes) { return arena::allocate(bytes); }
  static void operator delete(void* p, size_t bytes) { arena::deallocate(p, bytes); }
};

}  // namespace lawnkv::store
