#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

store::Entry* counted(DbContext& call, std::string_view key, store::Entry* e) {
  auto& stats = call.data.keyspace.stats();
  if (e) {
    ++stats.keyspace_hits;
  } else {
    ++stats.keyspace_misses;
    call.notify(pubsub::kKeyMiss, "keymiss", key);
  }
  return e;
}

}  // namespace

store::Entry* lookup_read(DbContext& call, std::string_view key) {
  return counted(call, key, call.db().lookup(key, call.now_ms));
}

store::Entry* lookup_read_untouched(DbContext& call, std::string_view key) {
  return counted(call, key, call.db().lookup_untouched(key, call.now_ms));
}

store::Entry* lookup_write(DbContext& call, std::string_view key) {
  return call.db().lookup(key, call.now_ms);
}

}  // namespace lawnkv
