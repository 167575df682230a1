#include "types/hash.hpp"

#include <vector>

#include "store/keyspace.hpp"

namespace lawnkv::types {

size_t Hash::read_len(std::string_view buf, size_t* pos) {
  size_t n = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<uint8_t>(buf[(*pos)++]);
    n |= static_cast<size_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return n;
  }
}

void Hash::write_len(std::string& out, size_t n) {
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
}

size_t Hash::find(std::string_view field) const {
  size_t pos = 0;
  while (pos < buf_.size()) {
    const size_t start = pos;
    const size_t flen = read_len(buf_, &pos);
    const bool match = flen == field.size() && std::string_view(buf_.data() + pos, flen) == field;
    pos += flen;
    if (match) return start;
    pos += read_len(buf_, &pos);
  }
  return std::string::npos;
}

std::optional<std::string_view> Hash::get(std::string_view field) const {
  if (table_) {
    const store::Entry* e = table_->find(field);
    if (!e) return std::nullopt;
    return e->str();
  }
  size_t pos = find(field);
  if (pos == std::string::npos) return std::nullopt;
  pos += read_len(buf_, &pos);
  const size_t vlen = read_len(buf_, &pos);
  return std::string_view(buf_.data() + pos, vlen);
}

Hash::~Hash() {
  if (db_ != nullptr) on_detach(*db_);
}

template <class F>
void Hash::for_each_ttl_field(F&& fn) {
  if (ttl_fields() == 0) return;
  std::vector<store::Entry*> fields;
  table_->for_each([&](store::Entry& e) {
    if (e.type() == store::Type::kHashField) fields.push_back(&e);
  });
  for (store::Entry* e : fields) fn(*e);
}

void Hash::unschedule(store::Entry& field) {
  if (db_ != nullptr) db_->clear_field_deadline(field);
}

void Hash::on_attach(store::Db& db, std::string_view key) {
  db_ = &db;
  if (table_) table_->key.assign(key);
  for_each_ttl_field([&](store::Entry& f) { db.set_field_deadline(f, f.deadline(), 0); });
}

void Hash::on_detach(store::Db& db) {
  for_each_ttl_field([&](store::Entry& f) { db.clear_field_deadline(f); });
  db_ = nullptr;
}

bool Hash::expire_part(store::Entry& part) {
  --table_->ttl_fields;
  table_->remove(part.key());
  return empty();
}

bool Hash::set(std::string_view field, std::string_view value, const Limits& limits, bool keep_ttl) {
  if (!table_) {
    const auto max_value = static_cast<size_t>(limits.max_listpack_value);
    const bool fits = field.size() <= max_value && value.size() <= max_value;
    const size_t at = find(field);
    if (fits && (at != std::string::npos || static_cast<int64_t>(count_) < limits.max_listpack_entries)) {
      std::string pair;
      write_len(pair, field.size());
      pair.append(field);
      write_len(pair, value.size());
      pair.append(value);
      if (at == std::string::npos) {
        splice(buf_.size(), 0, pair);
        ++count_;
        return true;
      }
      size_t end = at;
      end += read_len(buf_, &end);
      end += read_len(buf_, &end);
      splice(at, end - at, pair);
      return false;
    }
    convert(limits);
  }
  store::Entry* e = table_->find(field);
  if (table_->listpack_ex) {
    // The listpack's limits, as set() applies them above.
    const auto max_value = static_cast<size_t>(limits.max_listpack_value);
    const bool fits = field.size() <= max_value && value.size() <= max_value;
    if (!fits || (e == nullptr && static_cast<int64_t>(table_->size()) >= limits.max_listpack_entries))
      table_->listpack_ex = false;
  }
  if (e == nullptr) {
    table_->insert(store::Entry::make_string(field, value, false));
    return true;
  }
  if (e->type() == store::Type::kHashField) {
    if (keep_ttl) {
      if (e->assign_in_place(value)) return false;
      const int64_t deadline = e->deadline();
      unschedule(*e);
      store::EntryPtr fresh = store::Entry::make_field(field, value, this);
      store::Entry& f = *fresh;
      table_->replace(e, std::move(fresh));
      f.timer()->deadline = deadline;
      if (db_ != nullptr) db_->set_field_deadline(f, deadline, 0);
      return false;
    }
    unschedule(*e);
    --table_->ttl_fields;
    table_->replace(e, store::Entry::make_string(field, value, false));
    return false;
  }
  if (!e->assign_in_place(value)) table_->replace(e, store::Entry::make_string(field, value, false));
  return false;
}

int Hash::set_ttl(std::string_view key, std::string_view field, int64_t deadline_ms, int64_t ttl_ms,
                  Condition cond, int64_t now_ms) {
  if (!table_) {
    if (find(field) == std::string::npos) return kNoField;
    convert(Limits{});
    table_->listpack_ex = true;
  }
  // A listpack hash attached before it had a table has no key kept yet.
  if (db_ != nullptr && table_->key != key) table_->key.assign(key);
  store::Entry* e = table_->find(field);
  if (e == nullptr) return kNoField;
  const bool has_ttl = e->type() == store::Type::kHashField;
  if (!has_ttl && (cond == Condition::kXx || cond == Condition::kGt)) return kConditionNotMet;
  if (has_ttl) {
    const int64_t prev = e->deadline();
    if (cond == Condition::kNx || (cond == Condition::kGt && prev >= deadline_ms) ||
        (cond == Condition::kLt && prev <= deadline_ms))
      return kConditionNotMet;
  }
  if (deadline_ms <= now_ms) {
    remove(field);
    return kDeleted;
  }
  if (!has_ttl) {
    store::EntryPtr fresh = store::Entry::make_field(field, e->str(), this);
    store::Entry& f = *fresh;
    table_->replace(e, std::move(fresh));
    ++table_->ttl_fields;
    e = &f;
  }
  e->timer()->deadline = deadline_ms;
  if (db_ != nullptr) db_->set_field_deadline(*e, deadline_ms, ttl_ms);
  return kSet;
}

int64_t Hash::deadline_of(std::string_view field) const {
  if (!table_) return find(field) == std::string::npos ? kNoField : kNoTtl;
  const store::Entry* e = table_->find(field);
  if (e == nullptr) return kNoField;
  return e->type() == store::Type::kHashField ? e->deadline() : kNoTtl;
}

int Hash::persist(std::string_view field) {
  const int64_t d = deadline_of(field);
  if (d < 0) return static_cast<int>(d);
  store::Entry* e = table_->find(field);
  unschedule(*e);
  --table_->ttl_fields;
  table_->replace(e, store::Entry::make_string(field, e->str(), false));
  return 1;
}

size_t Hash::expire_due(int64_t now_ms, std::vector<std::string>* removed) {
  size_t n = 0;
  for_each_ttl_field([&](store::Entry& f) {
    if (now_ms <= f.deadline()) return;
    if (removed != nullptr) removed->emplace_back(f.key());
    unschedule(f);
    --table_->ttl_fields;
    table_->remove(f.key());
    ++n;
  });
  return n;
}

bool Hash::remove(std::string_view field) {
  if (table_) {
    store::Entry* e = table_->find(field);
    if (e == nullptr) return false;
    if (e->type() == store::Type::kHashField) {
      unschedule(*e);
      --table_->ttl_fields;
    }
    table_->remove(field);
    return true;
  }
  const size_t at = find(field);
  if (at == std::string::npos) return false;
  size_t end = at;
  end += read_len(buf_, &end);
  end += read_len(buf_, &end);
  splice(at, end - at, {});
  --count_;
  return true;
}

void Hash::splice(size_t at, size_t remove, std::string_view insert) {
  if (insert.size() == remove) {
    buf_.replace(at, remove, insert);
    return;
  }
  // reserve on an empty string allocates what it is asked (std::string's
  // doubling applies to growth of a string that has room already).
  std::string next;
  next.reserve(buf_.size() - remove + insert.size());
  next.append(buf_, 0, at).append(insert).append(buf_, at + remove);
  buf_.swap(next);
}

void Hash::convert(const Limits&) {
  auto table = std::make_unique<Table>();
  for_each([&](std::string_view f, std::string_view v) { table->insert(store::Entry::make_string(f, v, false)); });
  table_ = std::move(table);
  buf_ = std::string();
  count_ = 0;
}

std::pair<std::string_view, std::string_view> Hash::at(size_t i) const {
  std::pair<std::string_view, std::string_view> out;
  size_t n = 0;
  for_each([&](std::string_view f, std::string_view v) {
    if (n++ == i) out = {f, v};
  });
  return out;
}

std::pair<std::string_view, std::string_view> Hash::random(std::mt19937_64& rng) const {
  if (table_) {
    const store::Entry* e = table_->random(rng);
    return {e->key(), e->str()};
  }
  return at(rng() % count_);
}

size_t Hash::memory_bytes() const {
  if (!table_) return sizeof(Hash) + buf_.capacity();
  size_t n = sizeof(Hash) + sizeof(Table) + table_->memory_bytes();
  table_->for_each([&](const store::Entry& e) { n += e.block_bytes() + e.outside_bytes(); });
  return n;
}

std::unique_ptr<store::Object> Hash::clone() const {
  auto copy = std::make_unique<Hash>();
  if (!table_) {
    copy->buf_ = buf_;
    copy->count_ = count_;
    return copy;
  }
  copy->table_ = std::make_unique<Table>();
  copy->table_->listpack_ex = table_->listpack_ex;
    table_->for_each([&](const store::Entry& e) {
    if (e.type() != store::Type::kHashField) return copy->table_->insert(store::Entry::make_copy(e, e.key(), false));
    // A field with a TTL: its deadline, scheduled when the copy is attached.
    store::EntryPtr f = store::Entry::make_field(e.key(), e.str(), copy.get());
    f->timer()->deadline = e.deadline();
    copy->table_->insert(std::move(f));
  });
  copy->table_->ttl_fields = table_->ttl_fields;
  return copy;
}

}  // namespace lawnkv::types
