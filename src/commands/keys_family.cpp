// Keyspace commands: DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY, RENAME,
// RENAMENX, COPY, MOVE, SWAPDB, TOUCH. The store work is in keys_ops.cpp;
// here are the argument parsing and the replies.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/keys_ops.hpp"
#include "commands/scan_args.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kInvalidFirstDb = "ERR invalid first DB index";
constexpr std::string_view kInvalidSecondDb = "ERR invalid second DB index";

/* DEL key [key ...] */
void del_command(Call& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.argv.size(); ++i) deleted += op_delete(call, call.argv[i]);
  call.reply.integer(deleted);
}

/* UNLINK key [key ...]: DEL, since freeing a value here never blocks long. */
void unlink_command(Call& call) { del_command(call); }

/* EXISTS key [key ...]: looks without counting an access, as Redis. */
void exists_command(Call& call) {
  int64_t found = 0;
  for (size_t i = 1; i < call.argv.size(); ++i) found += lookup_read_untouched(call, call.argv[i]) != nullptr;
  call.reply.integer(found);
}

/* TOUCH key [key ...]: EXISTS that counts an access of each key. */
void touch_command(Call& call) {
  int64_t found = 0;
  for (size_t i = 1; i < call.argv.size(); ++i) found += lookup_read(call, call.argv[i]) != nullptr;
  call.reply.integer(found);
}

/* TYPE key: looks without counting an access, as Redis. */
void type_command(Call& call) { call.reply.simple(type_name(lookup_read_untouched(call, call.argv[1]))); }

/* KEYS pattern */
void keys_command(Call& call) { call.reply.array_of_bulks(op_keys(call, call.argv[1])); }

/* SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] */
void scan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[1], &cursor)) return;
  ScanOptions opts;
  if (!scan_options_or_reply(call, 2, /*allow_type=*/true, &opts)) return;
  std::vector<std::string> keys;
  cursor = op_scan(call, cursor, opts, &keys);
  call.reply.array(2);
  call.reply.bulk(std::to_string(cursor));
  call.reply.array_of_bulks(keys);
}

/* RANDOMKEY */
void randomkey_command(Call& call) {
  const store::Entry* e = op_random_key(call);
  if (e == nullptr) return call.reply.null();
  call.reply.bulk(e->key());
}

// RENAME and RENAMENX.
void rename_generic(Call& call, bool nx) {
  const OpStatus st = op_rename(call, call.argv[1], call.argv[2], nx);
  if (st == OpStatus::kNoKey) return call.error(err::kNoSuchKey);
  // RENAMENX answers 0 when the target exists, and for a key renamed onto
  // itself (nothing changes).
  if (nx) return call.reply.integer(st == OpStatus::kOk ? 1 : 0);
  call.reply.simple("OK");
}

/* RENAME key newkey */
void rename_command(Call& call) { rename_generic(call, false); }

/* RENAMENX key newkey */
void renamenx_command(Call& call) { rename_generic(call, true); }

/* COPY source destination [DB destination-db] [REPLACE] */
void copy_command(Call& call) {
  int dst_db = call.session.db;
  bool replace = false;
  for (size_t i = 3; i < call.argv.size(); ++i) {
    if (is_option(call.argv[i], "replace")) {
      replace = true;
    } else if (is_option(call.argv[i], "db") && i + 1 < call.argv.size()) {
      if (!db_index_or_reply(call, call.argv[++i], &dst_db)) return;
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (dst_db == call.session.db && call.argv[1] == call.argv[2]) return call.error(err::kSameObject);
  call.reply.integer(op_copy(call, call.argv[1], dst_db, call.argv[2], replace) == OpStatus::kOk ? 1 : 0);
}

/* MOVE key db */
void move_command(Call& call) {
  int dst_db;
  if (!db_index_or_reply(call, call.argv[2], &dst_db)) return;
  if (dst_db == call.session.db) return call.error(err::kSameObject);
  call.reply.integer(op_move(call, call.argv[1], dst_db) == OpStatus::kOk ? 1 : 0);
}

/* SWAPDB index1 index2 */
void swapdb_command(Call& call) {
  int a, b;
  if (!int_or_reply(call, call.argv[1], &a, kInvalidFirstDb)) return;
  if (!int_or_reply(call, call.argv[2], &b, kInvalidSecondDb)) return;
  const int n = call.data.keyspace.databases();
  if (a < 0 || a >= n || b < 0 || b >= n) return call.error(err::kDbIndex);
  if (a != b) op_swap_dbs(call, a, b);
  call.reply.simple("OK");
}

}  // namespace

void register_key_commands(CommandTable& t) {
  t.add({
    {.name = "copy", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, 2, 1},
     .acl = "@keyspace @write @slow",
     .group = "generic", .since = "6.2.0", .complexity = "O(N) where N is the size of the value",
     .summary = "Copies a key's value to another key",
     .key_flags = "RO access;OW update",
     .handler = copy_command},
    {.name = "del", .arity = -2, .flags = kWrite, .keys = {1, -1, 1},
     .acl = "@keyspace @write @slow",
     .group = "generic", .since = "1.0.0", .complexity = "O(N) where N is the number of keys",
     .summary = "Deletes keys",
     .tips = "request_policy:multi_shard response_policy:agg_sum",
     .key_flags = "RM delete",
     .handler = del_command},
    {.name = "exists", .arity = -2, .flags = kReadonly | kFast, .keys = {1, -1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(N) where N is the number of keys",
     .summary = "Counts how many of the keys exist",
     .tips = "request_policy:multi_shard response_policy:agg_sum",
     .key_flags = "RO",
     .handler = exists_command},
    {.name = "keys", .arity = 2, .flags = kReadonly,
     .acl = "@keyspace @read @slow @dangerous",
     .group = "generic", .since = "1.0.0", .complexity = "O(N) where N is the number of keys in the database",
     .summary = "Returns every key whose name matches a pattern",
     .tips = "request_policy:all_shards nondeterministic_output_order",
     .handler = keys_command},
    {.name = "move", .arity = 3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Moves a key to another database",
     .key_flags = "RW access update",
     .handler = move_command},
    {.name = "randomkey", .arity = 1, .flags = kReadonly,
     .acl = "@keyspace @read @slow",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns a key picked at random",
     .tips = "request_policy:all_shards nondeterministic_output",
     .handler = randomkey_command},
    {.name = "rename", .arity = 3, .flags = kWrite, .keys = {1, 2, 1},
     .acl = "@keyspace @write @slow",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Gives a key a new name, replacing any key of that name",
     .key_flags = "RW access delete;OW update",
     .handler = rename_command},
    {.name = "renamenx", .arity = 3, .flags = kWrite | kFast, .keys = {1, 2, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Gives a key a new name only if that name is free",
     .key_flags = "RW access delete;OW insert",
     .handler = renamenx_command},
    {.name = "scan", .arity = -2, .flags = kReadonly,
     .acl = "@keyspace @read @slow",
     .group = "generic", .since = "2.8.0", .complexity = "O(1) per call, O(N) for a whole iteration",
     .summary = "Iterates over the keys of the database with a cursor",
     .tips = "nondeterministic_output request_policy:special",
     .handler = scan_command},
    {.name = "swapdb", .arity = 3, .flags = kWrite | kFast,
     .acl = "@keyspace @write @fast @dangerous",
     .group = "generic", .since = "4.0.0", .complexity = "O(N) where N is the number of watching clients",
     .summary = "Exchanges the contents of two databases",
     .handler = swapdb_command},
    {.name = "touch", .arity = -2, .flags = kReadonly | kFast, .keys = {1, -1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "3.2.1", .complexity = "O(N) where N is the number of keys",
     .summary = "Counts how many of the keys exist",
     .tips = "request_policy:multi_shard response_policy:agg_sum",
     .key_flags = "RO",
     .handler = touch_command},
    {.name = "type", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns the type of a key's value",
     .key_flags = "RO",
     .handler = type_command},
    {.name = "unlink", .arity = -2, .flags = kWrite | kFast, .keys = {1, -1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "4.0.0", .complexity = "O(1) per key",
     .summary = "Deletes keys",
     .tips = "request_policy:multi_shard response_policy:agg_sum",
     .key_flags = "RM delete",
     .handler = unlink_command},
  });
}

}  // namespace lawnkv
