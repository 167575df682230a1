#include "commands/hashes_ops.hpp"

#include <memory>
#include <string>
#include <vector>

#include "core/numbers.hpp"
#include "commands/time_args.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

using types::Hash;

constexpr std::string_view kFieldsMissing = "ERR Mandatory argument FIELDS is missing or not at the right position";
constexpr std::string_view kNumFieldsMismatch = "ERR The `numfields` parameter must match the number of arguments";
constexpr std::string_view kExpireNegative = "ERR invalid expire time, must be >= 0";
// Redis 7.4's largest field deadline (EB_EXPIRE_TIME_MAX >> 2), in ms.
constexpr int64_t kMaxFieldDeadline = 0xFFFFFFFFFFFFLL >> 2;

Hash* without_due_fields(Call& call, std::string_view key, Hash* h) {
  // The index's next deadline bounds every field's: nothing can be due
  // before it (the usual case, active expiry being on time).
  if (h->ttl_fields() == 0 || call.db().next_deadline() >= call.now_ms) return h;
  std::vector<std::string> removed{"HDEL", std::string(key)};
  const size_t n = h->expire_due(call.now_ms, call.data.effects.active() ? &removed : nullptr);
  if (n == 0) return h;
  if (call.data.effects.active()) call.data.effects.add(call.db_index, std::move(removed));
  call.data.keyspace.stats().expired_subkeys += n;
  const bool emptied = h->empty();
  if (emptied) call.db().remove(key);
  call.modified(key, pubsub::kHash, "hexpired");
  if (emptied) call.notify(pubsub::kGeneric, "del", key);
  return emptied ? nullptr : h;
}

Hash* hash_at(Call& call, std::string_view key, Intent intent, bool* wrong_type) {
  Hash* h = lookup_or_reply<Hash>(call, key, intent, wrong_type);
  return h ? without_due_fields(call, key, h) : nullptr;
}

}  // namespace

Hash::Limits hash_limits(const Call& call) {
  return {call.cfg().hash_max_listpack_entries, call.cfg().hash_max_listpack_value};
}

Hash* hash_for_read(Call& call, std::string_view key, bool* wrong_type) {
  return hash_at(call, key, Intent::kRead, wrong_type);
}

Hash* hash_for_write(Call& call, std::string_view key, bool* wrong_type) {
  return hash_at(call, key, Intent::kWrite, wrong_type);
}

Hash* hash_or_create(Call& call, std::string_view key) {
  bool wrong_type;
  if (Hash* h = hash_for_write(call, key, &wrong_type)) return h;
  if (wrong_type) return nullptr;
  return static_cast<Hash*>(call.db().add_object(key, std::make_unique<Hash>()).obj());
}

bool delete_hash_if_empty(Call& call, std::string_view key, const Hash* h) {
  if (!h->empty()) return false;
  call.db().remove(key);
  return true;
}

bool fields_or_reply(Call& call, size_t at, std::string_view count_error,
                     std::span<const std::string_view>* fields) {
  if (at + 1 >= call.argv.size() || !is_option(call.argv[at], "fields")) {
    call.error(kFieldsMissing);
    return false;
  }
  long long n;
  if (!string_to_ll(call.argv[at + 1], &n) || n < 1) {
    call.error(count_error);
    return false;
  }
  if (static_cast<size_t>(n) != call.argv.size() - at - 2) {
    call.error(kNumFieldsMismatch);
    return false;
  }
  *fields = call.argv.subspan(at + 2);
  return true;
}

bool field_deadline_or_reply(Call& call, std::string_view arg, bool absolute, bool seconds,
                             int64_t* deadline_ms, int64_t* ttl_ms) {
  long long t;
  if (!integer_or_reply(call, arg, &t)) return false;
  if (t < 0) {
    call.error(kExpireNegative);
    return false;
  }
  const int64_t base = absolute ? 0 : call.now_ms;
  if ((seconds && t > kMaxFieldDeadline / 1000) || (seconds ? t * 1000 : t) > kMaxFieldDeadline - base) {
    reply_invalid_expire_time(call);
    return false;
  }
  if (seconds) t *= 1000;
  *deadline_ms = t + base;
  *ttl_ms = absolute ? 0 : t;
  return true;
}

}  // namespace lawnkv
