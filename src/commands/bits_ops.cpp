#include "commands/bits_ops.hpp"

#include <algorithm>
#include <string>

namespace lawnkv::bitops {

namespace {

struct Room {
  store::Entry* entry = nullptr;
  bool created = false;
  bool grew = false;
};

// found's string (or a new key's) at least size bytes long, zero padded, and
// marked raw: Redis's lookupStringForBitCommand. nullptr entry: wrong type.
Room make_room(store::Db& db, store::Entry* found, std::string_view key, uint64_t size) {
  if (found == nullptr) {
    store::Entry& e = db.add_string(key, std::string(size, '\0'));
    e.set_raw_encoding(true);
    return {&e, true, false};
  }
  if (found->type() != store::Type::kString) return {};
  const size_t had = found->str().size();
  store::Entry* e = found;
  if (had < size) {
    if (std::string* s = e->heap_str()) {
      s->resize(size, '\0');  // in place, amortised as APPEND's growth
    } else {
      std::string grown(e->str());
      grown.resize(size, '\0');
      e = &db.set_string(*e, grown);
    }
  }
  e->set_raw_encoding(true);
  return {e, false, had < size};
}

}  // namespace

OpResult<SetBit> op_setbit(store::Db& db, store::Entry* found, std::string_view key, uint64_t offset, int on) {
  const Room room = make_room(db, found, key, (offset >> 3) + 1);
  if (room.entry == nullptr) return {OpStatus::kWrongType};
  const int old = bits::set_bit(room.entry->str_bytes(), offset, on);
  return {OpStatus::kOk, SetBit{old, room.created || room.grew || old != on}, room.created};
}

OpResult<Bitfield> op_bitfield(store::Db& db, store::Entry* found, std::string_view key,
                               std::span<const bits::FieldOp> ops) {
  uint64_t last_bit = 0;
  for (const bits::FieldOp& op : ops)
    if (op.kind != bits::FieldOpKind::kGet) last_bit = std::max(last_bit, op.offset + op.type.bits - 1);
  const Room room = make_room(db, found, key, (last_bit >> 3) + 1);
  if (room.entry == nullptr) return {OpStatus::kWrongType};
  const std::span<char> bytes(room.entry->str_bytes(), room.entry->str().size());
  Bitfield out;
  out.results.reserve(ops.size());
  for (const bits::FieldOp& op : ops) {
    const bits::FieldResult r = bits::apply_field_op(bytes, op);
    if (op.kind != bits::FieldOpKind::kGet && !r.failed && (room.created || room.grew || r.changed))
      ++out.changes;
    out.results.push_back(r);
  }
  return {OpStatus::kOk, std::move(out), room.created};
}

OpResult<StoreResult> op_store_result(store::Db& db, store::Entry* found, std::string_view key,
                                      std::string_view value) {
  if (value.empty()) return {OpStatus::kOk, db.remove(key) ? StoreResult::kDeleted : StoreResult::kNothing};
  const auto r = strings::op_set(db, found, key, value, false, nullptr);
  r.value->set_raw_encoding(true);
  return {OpStatus::kOk, StoreResult::kStored, r.created};
}

}  // namespace lawnkv::bitops
