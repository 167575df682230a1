#include "engine/lookup.hpp"

#include "engine/errors.hpp"

namespace lawnkv {

store::Entry* lookup_read(DbContext& call, std::string_view key) {
  store::Entry* e = call.db().lookup(key, call.now_ms);
  auto& stats = call.data.keyspace.stats();
  if (e) {
    ++stats.keyspace_hits;
  } else {
    ++stats.keyspace_misses;
    call.notify(pubsub::kKeyMiss, "keymiss", key);
  }
  return e;
}

store::Entry* lookup_write(DbContext& call, std::string_view key) {
  return call.db().lookup(key, call.now_ms);
}

store::Entry* lookup_string_or_reply(Call& call, std::string_view key, bool* wrong_type) {
  store::Entry* e = lookup_read(call, key);
  *wrong_type = e && e->type() != store::Type::kString;
  if (*wrong_type) {
    call.error(err::kWrongType);
    return nullptr;
  }
  return e;
}

}  // namespace lawnkv
