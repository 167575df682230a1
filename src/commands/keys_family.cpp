// Keyspace commands: DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY, RENAME,
// RENAMENX, COPY, MOVE, SWAPDB, TOUCH. The store work is in keys_ops.cpp;
// here are the argument parsing and the replies.

#include <cctype>
#include <string>
#include <vector>

#include "commands/args.hpp"
#include "commands/errors.hpp"
#include "commands/families.hpp"
#include "commands/keys_ops.hpp"
#include "commands/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
constexpr std::string_view kInvalidFirstDb = "ERR invalid first DB index";
constexpr std::string_view kInvalidSecondDb = "ERR invalid second DB index";

// A SCAN cursor as Redis reads it with strtoul(): an optional sign and
// decimal digits up to the end (or a NUL byte), no leading space, no
// overflow. "-1" wraps to 2^64-1 and "" is 0, as strtoul makes them.
bool scan_cursor_or_reply(Call& call, std::string_view arg, uint64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < arg.size() && (arg[i] == '+' || arg[i] == '-')) negative = arg[i++] == '-';
  const size_t digits = i;
  uint64_t v = 0;
  bool overflow = false;
  for (; i < arg.size() && arg[i] >= '0' && arg[i] <= '9'; ++i) {
    const uint64_t d = static_cast<uint64_t>(arg[i] - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    v = v * 10 + d;
  }
  // With no digit strtoul consumes nothing: only an empty string passes.
  const size_t end = i == digits ? 0 : i;
  const bool leading_space = !arg.empty() && std::isspace(static_cast<unsigned char>(arg[0]));
  const bool rest_empty = end == arg.size() || arg[end] == '\0';
  if (leading_space || !rest_empty || overflow) {
    call.error(kInvalidCursor);
    return false;
  }
  *out = i == digits ? 0 : (negative ? 0 - v : v);
  return true;
}

// Parses SCAN's [MATCH pattern] [COUNT count] [TYPE type] from argv[first..].
bool scan_options_or_reply(Call& call, size_t first, ScanOptions* opts) {
  const auto& argv = call.argv;
  for (size_t i = first; i < argv.size(); i += 2) {
    const bool has_value = i + 1 < argv.size();
    if (has_value && is_option(argv[i], "count")) {
      if (!integer_or_reply(call, argv[i + 1], &opts->count)) return false;
      if (opts->count < 1) {
        call.error(err::kSyntax);
        return false;
      }
    } else if (has_value && is_option(argv[i], "match")) {
      opts->pattern = argv[i + 1];
      opts->use_pattern = opts->pattern != "*";
    } else if (has_value && is_option(argv[i], "type")) {
      opts->has_type = true;
      opts->type = c_string(argv[i + 1]);  // compared with strcasecmp
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

/* DEL key [key ...] */
void del_command(Call& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.argv.size(); ++i) deleted += op_delete(call, call.argv[i]);
  call.reply.integer(deleted);
}

/* UNLINK key [key ...]: DEL, since freeing a value here never blocks long. */
void unlink_command(Call& call) { del_command(call); }

/* EXISTS key [key ...] */
void exists_command(Call& call) {
  int64_t found = 0;
  for (size_t i = 1; i < call.argv.size(); ++i) found += lookup_read(call, call.argv[i]) != nullptr;
  call.reply.integer(found);
}

/* TOUCH key [key ...] */
void touch_command(Call& call) { exists_command(call); }

/* TYPE key */
void type_command(Call& call) { call.reply.simple(type_name(lookup_read(call, call.argv[1]))); }

/* KEYS pattern */
void keys_command(Call& call) { call.reply.array_of_bulks(op_keys(call, call.argv[1])); }

/* SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] */
void scan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[1], &cursor)) return;
  ScanOptions opts;
  if (!scan_options_or_reply(call, 2, &opts)) return;
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
  switch (op_rename(call, call.argv[1], call.argv[2], nx)) {
    case RenameStatus::kNoSuchKey: return call.error(err::kNoSuchKey);
    case RenameStatus::kTargetExists: return call.reply.integer(0);
    // Renaming a key onto itself changes nothing: RENAMENX answers 0.
    case RenameStatus::kSameKey: return nx ? call.reply.integer(0) : call.reply.simple("OK");
    case RenameStatus::kRenamed: return nx ? call.reply.integer(1) : call.reply.simple("OK");
  }
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
  const CopyStatus status = op_copy(call, call.argv[1], dst_db, call.argv[2], replace);
  call.reply.integer(status == CopyStatus::kCopied ? 1 : 0);
}

/* MOVE key db */
void move_command(Call& call) {
  int dst_db;
  if (!db_index_or_reply(call, call.argv[2], &dst_db)) return;
  if (dst_db == call.session.db) return call.error(err::kSameObject);
  call.reply.integer(op_move(call, call.argv[1], dst_db) == MoveStatus::kMoved ? 1 : 0);
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
