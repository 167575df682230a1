#include "commands/hyperloglog_ops.hpp"

#include <string>

#include "types/hyperloglog.hpp"

namespace lawnkv::hyperloglog {

namespace {

// Runs edit on e's value as a std::string: in place for a long value, on a
// copy stored back (if it changed) for a short one. The value ends raw.
// e may move to a new block (store/entry.hpp).
template <class F>
auto edit_value(store::Db& db, store::Entry*& e, F&& edit) {
  if (std::string* s = e->heap_str()) {
    auto r = edit(*s);
    e->set_raw_encoding(true);
    return r;
  }
  std::string s(e->str());
  auto r = edit(s);
  if (s != e->str()) e = &db.set_string(*e, s);
  e->set_raw_encoding(true);
  return r;
}

}  // namespace

OpStatus check(const store::Entry& e) {
  if (e.type() != store::Type::kString) return OpStatus::kWrongType;
  return hll::is_hll(e.str()) ? OpStatus::kOk : OpStatus::kNotHll;
}

OpResult<int> op_pfadd(store::Db& db, store::Entry* found, std::string_view key,
                       std::span<const std::string_view> elements, size_t sparse_max_bytes) {
  int updated = 0;
  bool corrupt = false;
  const auto add_all = [&](std::string& v) {
    for (std::string_view element : elements) {
      const int r = hll::add(v, element, sparse_max_bytes);
      if (r < 0) {
        corrupt = true;
        return 0;
      }
      updated += r;
    }
    if (updated) hll::invalidate_cache(v.data());
    return 0;
  };
  if (found == nullptr) {
    std::string v = hll::make_empty();
    ++updated;
    add_all(v);  // a new value cannot be corrupt
    db.add_string(key, v).set_raw_encoding(true);
    return {OpStatus::kOk, updated, true};
  }
  if (const OpStatus s = check(*found); s != OpStatus::kOk) return {s};
  edit_value(db, found, add_all);
  if (corrupt) return {OpStatus::kCorruptHll};
  return {OpStatus::kOk, updated, false};
}

OpResult<Count> op_pfcount(store::Entry& e) {
  e.set_raw_encoding(true);
  if (const auto cached = hll::cached_cardinality(e.str())) return {OpStatus::kOk, Count{*cached, false}};
  bool invalid = false;
  const uint64_t card = hll::count(e.str(), &invalid);
  if (invalid) return {OpStatus::kCorruptHll};
  // The same length: the bytes are overwritten where they are.
  hll::store_cardinality(e.str_bytes(), card);
  return {OpStatus::kOk, Count{card, true}};
}

OpResult<bool> op_pfmerge(store::Db& db, store::Entry* found, std::string_view key, const uint8_t* max,
                          bool dense, size_t sparse_max_bytes) {
  bool created = false;
  if (found == nullptr) {
    found = &db.add_string(key, hll::make_empty());
    created = true;
  }
  const bool ok = edit_value(db, found, [&](std::string& v) {
    if (dense && !hll::to_dense(v)) return false;
    for (uint32_t j = 0; j < hll::kRegisters; ++j)
      if (max[j]) hll::set_register(v, j, max[j], sparse_max_bytes);
    hll::invalidate_cache(v.data());
    return true;
  });
  return {ok ? OpStatus::kOk : OpStatus::kCorruptHll, ok, created};
}

OpResult<bool> op_to_dense(store::Db& db, store::Entry*& e) {
  if (hll::encoding_of(e->str()) == hll::kDense) return {OpStatus::kOk, false};
  const bool ok = edit_value(db, e, [](std::string& v) { return hll::to_dense(v); });
  return {ok ? OpStatus::kOk : OpStatus::kCorruptHll, ok};
}

}  // namespace lawnkv::hyperloglog
