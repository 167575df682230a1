#pragma once
// DUMP's payload, as Redis 7.0's createDumpPayload writes it and RESTORE
// reads it: one value in RDB form, then a footer.
//
//   <type byte> <value, as an RDB file holds it> <RDB version, 2 bytes LE>
//   <CRC-64 of everything before, 8 bytes LE>
//
// The version is 10 (Redis 7.0), or what the value's codec needs (12 for a
// hash with a field TTL). A payload is accepted when its version is one the
// loader reads (Redis 7.0 refuses past 10) and its checksum matches; its
// value is then rebuilt whole or not at all.

#include <cstdint>
#include <string>
#include <string_view>

#include "persistence/value_codecs.hpp"
#include "store/entry.hpp"

namespace lawnkv::persistence {

// The payload of e's value (strings included); "" for a type without a
// codec.
std::string dump_payload(const store::Entry& e, bool compress);

// Whether payload's footer holds a version the loader reads and the CRC-64
// of what precedes it.
bool dump_payload_valid(std::string_view payload);

// A value rebuilt from a payload: a string, or an object.
struct RestoredValue {
  std::string str;
  LoadedValue value;  // value.obj null: a string (unless parts_expired)
  bool is_string = false;
};

// Rebuilds the value of a payload dump_payload_valid accepted. False on
// anything malformed, a type lawnkv does not serve, or an empty value.
bool restore_payload(std::string_view payload, const LoadContext& ctx, RestoredValue& out);

}  // namespace lawnkv::persistence
