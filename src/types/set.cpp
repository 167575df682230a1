#include "types/set.hpp"

namespace lawnkv::types {

Set::Set(const Set& other)
    : ints_(other.ints_), table_(other.table_ ? std::make_unique<MemberTable>(*other.table_) : nullptr) {}

size_t Set::memory_bytes() const {
  return sizeof(*this) + ints_.memory_bytes() + (table_ ? table_->memory_bytes() : 0);
}

std::unique_ptr<store::Object> Set::clone() const { return std::make_unique<Set>(*this); }

bool Set::contains(std::string_view member) const {
  if (table_) return table_->contains(member);
  long long v;
  return string_to_ll(member, &v) && ints_.contains(v);
}

bool Set::contains(const Member& m) const {
  if (!m.is_int) return contains(m.bytes);
  if (!table_) return ints_.contains(m.value);
  char buf[kLongStrSize];
  return table_->contains(m.text(buf));
}

void Set::convert(uint64_t seed) {
  auto table = std::make_unique<MemberTable>(seed, ints_.size());
  char buf[kLongStrSize];
  for (size_t i = 0; i < ints_.size(); ++i) table->insert(Member::of_int(ints_.at(i)).text(buf));
  ints_.clear();
  table_ = std::move(table);
}

bool Set::add_int(int64_t v, const SetOptions& opts) {
  if (!ints_.insert(v)) return false;
  if (ints_.size() > intset_cap(opts)) convert(opts.seed());
  return true;
}

bool Set::add(std::string_view member, const SetOptions& opts) {
  if (table_) return table_->insert(member);
  long long v;
  if (string_to_ll(member, &v)) return add_int(v, opts);
  convert(opts.seed());
  return table_->insert(member);
}

bool Set::add(const Member& m, const SetOptions& opts) {
  if (!m.is_int) return add(m.bytes, opts);
  if (!table_) return add_int(m.value, opts);
  char buf[kLongStrSize];
  return table_->insert(m.text(buf));
}

bool Set::remove(std::string_view member) {
  if (table_) return table_->erase(member);
  long long v;
  return string_to_ll(member, &v) && ints_.erase(v);
}

bool Set::remove(const Member& m) {
  if (!m.is_int) return remove(m.bytes);
  if (!table_) return ints_.erase(m.value);
  char buf[kLongStrSize];
  return table_->erase(m.text(buf));
}

Member Set::random(std::mt19937_64& rng) const {
  if (table_) return Member::of_bytes(table_->random(rng));
  return Member::of_int(ints_.at(rng() % ints_.size()));
}

}  // namespace lawnkv::types
