// OBJECT ENCODING | FREQ | IDLETIME | REFCOUNT | HELP: what Redis 7.0
// reports about a key's value.
//
// ENCODING: commands/encoding_names.hpp.
// REFCOUNT: Redis shares the integers 0..9999 (refcount 2147483647) unless
// an LRU or LFU policy needs a use field per key; every other value is 1.
// FREQ: the key's LFU use counter (0..7, store/eviction.hpp), under an LFU
// policy only. IDLETIME: the fewest seconds the key's idle class stands for
// (store/idle_class.hpp: 0, 60, 180, 420... seconds), and Redis's error
// under an LFU policy. OBJECT itself counts no access.

#include "commands/encoding_names.hpp"
#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "store/idle_class.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kNoLfu =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching "
    "between policies at runtime LRU and LFU data will take some time to adjust.";
constexpr std::string_view kLfu =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between "
    "policies at runtime LRU and LFU data will take some time to adjust.";
constexpr long long kSharedIntegers = 10000;

// The live value at argv[2], untouched; nullptr after replying nil.
const store::Entry* value_or_nil(Call& call) {
  const store::Entry* e = call.db().lookup_untouched(call.argv[2], call.now_ms);
  if (!e) call.reply.null();
  return e;
}

/* OBJECT ENCODING key */
void object_encoding_command(Call& call) {
  const store::Entry* e = value_or_nil(call);
  if (!e) return;
  call.reply.bulk(encoding_name(*e));
}

/* OBJECT REFCOUNT key */
void object_refcount_command(Call& call) {
  const store::Entry* e = value_or_nil(call);
  if (!e) return;
  long long v;
  const bool shareable = call.cfg().maxmemory == 0 || call.data.keyspace.use_counter().mode() == store::AccessMode::kNone;
  const bool shared = shareable && int_encoded(*e, &v) && v >= 0 && v < kSharedIntegers;
  call.reply.integer(shared ? 2147483647 : 1);
}

/* OBJECT FREQ key */
void object_freq_command(Call& call) {
  const store::Entry* e = value_or_nil(call);
  if (!e) return;
  if (call.data.keyspace.use_counter().mode() != store::AccessMode::kLfu) return call.error(kNoLfu);
  call.reply.integer(e->use());
}

/* OBJECT IDLETIME key */
void object_idletime_command(Call& call) {
  const store::Entry* e = value_or_nil(call);
  if (!e) return;
  if (call.data.keyspace.use_counter().mode() == store::AccessMode::kLfu) return call.error(kLfu);
  call.reply.integer(store::idle_floor_s(e->idle_class()));
}

/* OBJECT HELP */
void object_help_command(Call& call) {
  reply_help(call, "OBJECT",
             {"ENCODING <key>",
              "    Return the kind of internal representation used in order to store the value",
              "    associated with a <key>.",
              "FREQ <key>",
              "    Return the access frequency index of the <key>. The returned integer is",
              "    proportional to the logarithm of the recent access frequency of the key.",
              "IDLETIME <key>",
              "    Return the idle time of the <key>, that is the approximated number of",
              "    seconds elapsed since the last access to the key.",
              "REFCOUNT <key>",
              "    Return the number of references of the value associated with the specified",
              "    <key>."});
}

}  // namespace

void register_object_commands(CommandTable& t) {
  constexpr std::string_view kAcl = "@keyspace @read @slow";
  t.add({
      {.name = "object", .arity = -2, .flags = 0,
       .acl = "@slow",
       .group = "generic", .since = "2.2.3", .complexity = "Depends on the subcommand",
       .summary = "Commands about a key's value",
       .subcommands = {
           {.name = "object|encoding", .arity = 3, .flags = kReadonly, .keys = {2, 2, 1},
            .acl = kAcl,
            .group = "generic", .since = "2.2.3", .complexity = "O(1)",
            .summary = "Returns how a key's value is represented",
            .tips = "nondeterministic_output", .key_flags = "RO",
            .handler = object_encoding_command},
           {.name = "object|freq", .arity = 3, .flags = kReadonly, .keys = {2, 2, 1},
            .acl = kAcl,
            .group = "generic", .since = "4.0.0", .complexity = "O(1)",
            .summary = "Returns a key's access frequency counter (LFU policies)",
            .tips = "nondeterministic_output", .key_flags = "RO",
            .handler = object_freq_command},
           {.name = "object|help", .arity = 2, .flags = kLoading | kStale,
            .acl = "@keyspace @slow",
            .group = "generic", .since = "6.2.0", .complexity = "O(1)",
            .summary = "Describes the OBJECT subcommands",
            .handler = object_help_command},
           {.name = "object|idletime", .arity = 3, .flags = kReadonly, .keys = {2, 2, 1},
            .acl = kAcl,
            .group = "generic", .since = "2.2.3", .complexity = "O(1)",
            .summary = "Returns the seconds since a key was last used",
            .tips = "nondeterministic_output", .key_flags = "RO",
            .handler = object_idletime_command},
           {.name = "object|refcount", .arity = 3, .flags = kReadonly, .keys = {2, 2, 1},
            .acl = kAcl,
            .group = "generic", .since = "2.2.3", .complexity = "O(1)",
            .summary = "Returns how many references a key's value has",
            .tips = "nondeterministic_output", .key_flags = "RO",
            .handler = object_refcount_command},
       }},
  });
}

}  // namespace lawnkv
