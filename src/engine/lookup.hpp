#pragma once
// Key lookups as commands do them (Redis's lookupKeyRead / lookupKeyWrite):
// lazy expiry against the call's time snapshot, and for reads the
// keyspace_hits / keyspace_misses counters and the `keymiss` notification.
// lookup<T> adds Redis's checkType: the one typed lookup of every family.

#include <string_view>
#include <type_traits>

#include "engine/context.hpp"
#include "engine/errors.hpp"
#include "store/entry.hpp"

namespace lawnkv {

namespace types {
class Hash;
class Set;
class List;
class ZSet;
class Stream;
}  // namespace types
namespace dehydrator {
class Dehydrator;
}  // namespace dehydrator

// For commands that read the value (GET, STRLEN, TYPE...).
store::Entry* lookup_read(DbContext& call, std::string_view key);
// lookup_read without counting an access (Redis's LOOKUP_NOTOUCH: EXISTS,
// TYPE, TTL and its kin, SCAN's TYPE filter): the key's idle time and
// eviction use counter stay as they are; hits, misses and `keymiss` count.
store::Entry* lookup_read_untouched(DbContext& call, std::string_view key);
// For commands that are about to change or replace the key (no hit/miss).
store::Entry* lookup_write(DbContext& call, std::string_view key);

// The store::Type of each value type, one row per type. A string's bytes
// live in its entry, so store::Entry stands for the string type.
template <class T>
struct ValueType;
template <> struct ValueType<store::Entry> { static constexpr store::Type kType = store::Type::kString; };
template <> struct ValueType<types::Hash> { static constexpr store::Type kType = store::Type::kHash; };
template <> struct ValueType<types::Set> { static constexpr store::Type kType = store::Type::kSet; };
template <> struct ValueType<types::List> { static constexpr store::Type kType = store::Type::kList; };
template <> struct ValueType<types::ZSet> { static constexpr store::Type kType = store::Type::kZSet; };
template <> struct ValueType<types::Stream> { static constexpr store::Type kType = store::Type::kStream; };
template <> struct ValueType<dehydrator::Dehydrator> { static constexpr store::Type kType = store::Type::kDehydrator; };

// A key looked up as a T: value is null when the key is missing, or when it
// holds another type (then wrong_type; nothing is replied, the command
// answers err::kWrongType when Redis does).
template <class T>
struct Typed {
  T* value = nullptr;
  bool wrong_type = false;
};

enum class Intent {
  kRead,   // lookup_read: hits, misses, `keymiss`
  kWrite,  // lookup_write: the command is about to change or replace the key
};

// The value of type T at key (T complete where it is called).
template <class T>
Typed<T> lookup(DbContext& call, std::string_view key, Intent intent) {
  store::Entry* e = intent == Intent::kRead ? lookup_read(call, key) : lookup_write(call, key);
  if (e == nullptr) return {};
  if (e->type() != ValueType<T>::kType) return {nullptr, true};
  if constexpr (std::is_same_v<T, store::Entry>) {
    return {e, false};
  } else {
    return {static_cast<T*>(e->obj()), false};
  }
}

// lookup<T> for a command that answers WRONGTYPE at once: the value, or
// nullptr when the key is missing (*wrong_type false) or holds another type
// (*wrong_type true, err::kWrongType replied).
template <class T>
T* lookup_or_reply(Call& call, std::string_view key, Intent intent, bool* wrong_type) {
  const Typed<T> found = lookup<T>(call, key, intent);
  *wrong_type = found.wrong_type;
  if (found.wrong_type) call.error(err::kWrongType);
  return found.value;
}

}  // namespace lawnkv
