#include "commands/sets_ops.hpp"

#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

}  // namespace

bool sets_for_read(DbContext& call, std::span<const std::string_view> keys,
                   std::vector<const types::Set*>* sets) {
  sets->clear();
  sets->reserve(keys.size());
  for (std::string_view key : keys) {
    const auto r = lookup<types::Set>(call, key, Intent::kRead);
    if (r.wrong_type) return false;
    sets->push_back(r.value);
  }
  return true;
}

types::SetOptions set_options(Call& call) {
  const int64_t max = call.cfg().set_max_intset_entries;
  return {.max_intset_entries = static_cast<size_t>(max), .seeds = &call.data.keyspace.rng()};
}

types::Set& create_set(DbContext& call, std::string_view key) {
  return static_cast<types::Set&>(*call.db().add_object(key, std::make_unique<types::Set>()).obj());
}

bool store_set(DbContext& call, std::string_view key, std::unique_ptr<types::Set> set) {
  store::Db& db = call.db();
  const store::Entry* old = lookup_write(call, key);
  if (old == nullptr) {
    db.add_object(key, std::move(set));
    return true;
  }
  // A new value in the key's place: the eviction use counter stays, as
  // store::Db keeps it when a value changes.
  const uint8_t use = old->use();
  db.remove(key);
  db.set_use(db.add_object(key, std::move(set)), use);
  return false;
}

}  // namespace lawnkv
