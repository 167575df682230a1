#include "engine/lookup.hpp"

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

}  // namespace lawnkv
