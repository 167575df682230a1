// DUMP and RESTORE: a key's value carried as Redis 7.0's payload (the value
// in RDB form, the RDB version and a CRC-64: persistence/dump_payload.hpp),
// so keys move between lawnkv and redis-server both ways.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "core/numbers.hpp"
#include "durability/snapshots.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "persistence/dump_payload.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kBusyKey = "BUSYKEY Target key name already exists.";
constexpr std::string_view kBadPayload = "ERR DUMP payload version or checksum are wrong";
constexpr std::string_view kBadData = "ERR Bad data format";
constexpr std::string_view kInvalidTtl = "ERR Invalid TTL value, must be >= 0";
constexpr std::string_view kInvalidIdle = "ERR Invalid IDLETIME value, must be >= 0";
constexpr std::string_view kInvalidFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255";

/* DUMP key */
void dump_command(Call& call) {
  const store::Entry* e = lookup_read(call, call.argv[1]);
  if (e == nullptr) return call.reply.null();
  call.reply.bulk(persistence::dump_payload(*e, call.cfg().rdbcompression));
}

struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  long long idle = -1;  // IDLETIME seconds; -1: not given
  long long freq = -1;  // FREQ 0..255; -1: not given
};

// Redis's order of checks: the options, then BUSYKEY, then the TTL, then
// the payload's footer, then its value.
bool restore_options_or_reply(Call& call, RestoreOptions* o) {
  for (size_t j = 4; j < call.argv.size(); ++j) {
    const bool more = j + 1 < call.argv.size();
    if (is_option(call.argv[j], "replace")) {
      o->replace = true;
    } else if (is_option(call.argv[j], "absttl")) {
      o->absttl = true;
    } else if (is_option(call.argv[j], "idletime") && more && o->freq == -1) {
      if (!integer_or_reply(call, call.argv[++j], &o->idle)) return false;
      if (o->idle < 0) return call.error(kInvalidIdle), false;
    } else if (is_option(call.argv[j], "freq") && more && o->idle == -1) {
      if (!integer_or_reply(call, call.argv[++j], &o->freq)) return false;
      if (o->freq < 0 || o->freq > 255) return call.error(kInvalidFreq), false;
    } else {
      return call.error(err::kSyntax), false;
    }
  }
  return true;
}

/* RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency] */
void restore_command(Call& call) {
  RestoreOptions opts;
  if (!restore_options_or_reply(call, &opts)) return;
  const std::string_view key = call.argv[1];
  if (!opts.replace && lookup_write(call, key) != nullptr) return call.error(kBusyKey);
  long long ttl;
  if (!integer_or_reply(call, call.argv[2], &ttl)) return;
  if (ttl < 0) return call.error(kInvalidTtl);
  const std::string_view payload = call.argv[3];
  if (!persistence::dump_payload_valid(payload)) return call.error(kBadPayload);

  persistence::RestoredValue restored;
  const persistence::LoadOptions load = call.server.snapshots().load_options(call.server, call.now_ms);
  if (!persistence::restore_payload(payload, load.values, restored)) return call.error(kBadData);

  const bool deleted = opts.replace && lookup_write(call, key) != nullptr && call.db().remove(key);
  long long deadline = ttl;
  if (ttl != 0 && !opts.absttl) deadline = ttl > INT64_MAX - call.now_ms ? INT64_MAX : ttl + call.now_ms;
  // A deadline already reached, or a hash whose every field had expired:
  // nothing is created (what REPLACE removed stays removed).
  const bool nothing = !restored.is_string && !restored.value.obj;
  if ((ttl != 0 && deadline <= call.now_ms) || nothing) {
    if (deleted) {
      call.data.effects.replace_own({"DEL", key});
      call.modified(key, pubsub::kGeneric, "del");
    }
    return call.reply.simple("OK");
  }

  const bool timed = ttl != 0;
  store::EntryPtr e = restored.is_string ? store::Entry::make_string(key, restored.str, timed)
                                         : store::Entry::make_object(key, std::move(restored.value.obj), timed);
  store::Entry& added = call.db().attach(std::move(e), timed ? deadline : -1);
  // IDLETIME: the idle class that stands for that many seconds (none under
  // an LFU policy, as Redis's objectSetLRUOrLFU).
  if (opts.idle >= 0 && call.data.keyspace.use_counter().mode() != store::AccessMode::kLfu)
    added.set_idle_class(call.data.aging.class_for(opts.idle, call.now_ms));
  call.notify(pubsub::kNew, "new", key);
  // The record carries the absolute deadline, as Redis propagates it.
  if (timed && !opts.absttl && call.data.effects.active()) {
    std::vector<std::string> argv(call.argv.begin(), call.argv.end());
    argv[2] = ll_to_string(deadline);
    argv.emplace_back("ABSTTL");
    call.data.effects.replace_own(std::move(argv));
  }
  call.modified(key, pubsub::kGeneric, "restore");
  call.reply.simple("OK");
}

}  // namespace

void register_dump_restore_commands(CommandTable& t) {
  t.add({
    {.name = "dump", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@keyspace @read @slow",
     .group = "generic", .since = "2.6.0", .complexity = "O(1) to access the key and additional O(N*M) to serialize it",
     .summary = "Returns a serialized representation of a key's value",
     .tips = "nondeterministic_output", .key_flags = "RO access",
     .handler = dump_command},
    {.name = "restore", .arity = -4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@keyspace @write @slow @dangerous",
     .group = "generic", .since = "2.6.0", .complexity = "O(1) to create the new key and additional O(N*M) to rebuild the value",
     .summary = "Creates a key from the serialized value DUMP returned",
     .key_flags = "OW update",
     .handler = restore_command},
  });
}

}  // namespace lawnkv
