#pragma once
// The store half of the HyperLogLog commands (the Op of the Op/Cmd split;
// the commands are hyperloglog_family.cpp, the encoding types/hyperloglog.hpp).
// A HyperLogLog is a string value: the ops edit its bytes where they live
// (a long value's std::string) or store the edited copy back (a short one),
// and leave it marked raw (OBJECT ENCODING), as Redis's dbUnshareStringValue
// does for every HyperLogLog command that touches a key.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "engine/op_status.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::hyperloglog {

// Redis's isHLLObjectOrReply on a live key: kOk, kWrongType (not a string),
// kNotHll (a string without a HyperLogLog's header).
OpStatus check(const store::Entry& e);

// PFADD: creates the key (empty HLL) when found is nullptr, then adds the
// elements in order. The result counts the changes (creation included): 0
// means the value is untouched. kWrongType, kNotHll; kCorruptHll stops at
// the element that found the opcodes corrupt, the earlier ones kept (Redis).
OpResult<int> op_pfadd(store::Db& db, store::Entry* found, std::string_view key,
                       std::span<const std::string_view> elements, size_t sparse_max_bytes);

// PFCOUNT of one checked key: the cached cardinality, or a recount stored
// back in the header (recounted true: the value changed). kCorruptHll.
struct Count {
  uint64_t card = 0;
  bool recounted = false;
};
OpResult<Count> op_pfcount(store::Entry& e);

// PFMERGE's destination: creates it when found is nullptr, turns it dense
// when dense (some source was), raises its registers to max (16384 bytes,
// one per register) in order and marks its cache stale. kCorruptHll (the
// destination could not turn dense).
OpResult<bool> op_pfmerge(store::Db& db, store::Entry* found, std::string_view key, const uint8_t* max,
                          bool dense, size_t sparse_max_bytes);

// PFDEBUG TODENSE / GETREG's conversion of a checked key: true when it was
// sparse and is now dense. *e may move. kCorruptHll.
OpResult<bool> op_to_dense(store::Db& db, store::Entry*& e);

// Marks a checked key raw (the HyperLogLog commands' unsharing).
inline void mark_raw(store::Entry& e) { e.set_raw_encoding(true); }

}  // namespace lawnkv::hyperloglog
