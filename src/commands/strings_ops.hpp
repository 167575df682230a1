#pragma once
// The store half of the string commands (the Op of the Op/Cmd split): each
// operation changes one key of a Db and returns a status and a result. They
// write no reply, publish no event and do no lookup: the command looks the
// key up (lookup_read or lookup_write, with their counters and lazy expiry),
// passes the live entry in (`found`, nullptr when the key is absent), and
// turns the result into the reply and the keyspace events (strings_family.cpp).
// Each op returns an OpResult (engine/op_status.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/op_status.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::strings {

// A deadline for Db::set_deadline: at_ms absolute Unix ms; ttl_ms the relative
// TTL it came from (EX, PX, SETEX, PSETEX), 0 for an absolute one (EXAT, PXAT).
struct Deadline {
  int64_t at_ms = 0;
  int64_t ttl_ms = 0;
};

// SET, GETSET, MSET...: stores value at key, replacing whatever found holds
// (any type). Without keep_ttl the key loses its TTL (Redis's setKey); with
// expire (not null) it gets that deadline. The result is the key's entry.
OpResult<store::Entry*> op_set(store::Db& db, store::Entry* found, std::string_view key,
                               std::string_view value, bool keep_ttl, const Deadline* expire);

// INCR, DECR, INCRBY, DECRBY: adds delta to the integer at key (an absent key
// counts as 0) and returns the new value. The TTL is kept.
// kWrongType, kNotInteger, kOverflow.
OpResult<long long> op_incr_by(store::Db& db, store::Entry* found, std::string_view key,
                               long long delta);

// INCRBYFLOAT: adds incr to the long double at key (absent: 0) and returns
// the stored text, ld_to_string's "%.17Lf" without trailing zeros. The TTL is
// kept. kWrongType, kNotFloat, kNanOrInfinity.
OpResult<std::string> op_incr_by_float(store::Db& db, store::Entry* found, std::string_view key,
                                       long double incr);

// APPEND: appends value (an absent key is created holding it) and returns
// the new length. kWrongType; kTooLong when an existing value would grow past
// max_len (an absent key is created whatever value's size, as Redis does).
OpResult<size_t> op_append(store::Db& db, store::Entry* found, std::string_view key,
                           std::string_view value, int64_t max_len);

// SETRANGE: writes value at offset (>= 0), padding with zero bytes, and
// returns the new length. An empty value changes nothing and returns the
// current length (0 for an absent key, which is not created). kWrongType;
// kTooLong when offset + value's size exceeds max_len.
OpResult<size_t> op_set_range(store::Db& db, store::Entry* found, std::string_view key,
                              long long offset, std::string_view value, int64_t max_len);

// GETRANGE: the bytes of s from start to end inclusive; negative indexes
// count from the end (-1 is the last byte), both are clamped into s. Empty
// when the range is empty, as Redis's getrangeCommand:
//   "Hello" 0 -1 -> "Hello"   -3 -1 -> "llo"   -1 -3 -> ""   -100 -50 -> "H"
std::string_view string_range(std::string_view s, long long start, long long end);

// How an expire argument counts time.
enum class TimeUnit { kSeconds, kMilliseconds };

// Turns the integer of EX/PX (relative, added to now_ms) or EXAT/PXAT
// (absolute) into a deadline. kInvalidExpire, as Redis's
// getExpireMillisecondsOrReply, when value <= 0, when value seconds do not
// fit in ms, or when now_ms + ms overflows. An absolute deadline may already
// be past: the caller decides (SET keeps the key until a lookup expires it;
// GETEX deletes it).
OpResult<Deadline> resolve_deadline(long long value, TimeUnit unit, bool absolute, int64_t now_ms);

}  // namespace lawnkv::strings
