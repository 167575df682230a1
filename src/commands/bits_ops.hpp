#pragma once
// The store half of the bit commands (the Op of the Op/Cmd split; the
// commands are bits_family.cpp, the bit arithmetic core/bits.hpp). As in
// strings_ops.hpp: the command looks the key up and passes the live entry
// in (`found`, nullptr when absent); the op changes the key and returns a
// status and a result; the command replies and publishes.
//
// A write makes room first, as Redis's lookupStringForBitCommand does: an
// absent key is created holding zero bytes, a short value is padded with
// zero bytes, and the value is marked raw (OBJECT ENCODING) even when no
// bit then changes.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "commands/strings_ops.hpp"
#include "core/bits.hpp"

namespace lawnkv::bitops {

// What a write did to the key beyond `created`: changed is Redis's test for
// signalling WATCH and publishing `setbit` (the value grew, or a bit
// changed, or the key was created).
struct SetBit {
  int old_bit = 0;
  bool changed = false;
};

// SETBIT: sets the bit at offset to on (0 or 1). kWrongType.
OpResult<SetBit> op_setbit(store::Db& db, store::Entry* found, std::string_view key, uint64_t offset, int on);

struct Bitfield {
  std::vector<bits::FieldResult> results;  // one per op, in order
  int changes = 0;  // ops that wrote (all of them when the value grew)
};

// BITFIELD with at least one SET or INCRBY: makes room for the farthest bit
// written, then runs the ops in order (GETs see the writes before them).
// kWrongType.
OpResult<Bitfield> op_bitfield(store::Db& db, store::Entry* found, std::string_view key,
                               std::span<const bits::FieldOp> ops);

enum class StoreResult { kStored, kDeleted, kNothing };

// BITOP's destination: holds value (no TTL, raw), or when value is empty is
// deleted without an expiry check (Redis's dbDelete): kDeleted if a key was
// there, else kNothing. `created`: the key was added.
OpResult<StoreResult> op_store_result(store::Db& db, store::Entry* found, std::string_view key,
                                      std::string_view value);

}  // namespace lawnkv::bitops
