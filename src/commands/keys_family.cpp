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
  const int n = call.server.keyspace.databases();
  if (a < 0 || a >= n || b < 0 || b >= n) return call.error(err::kDbIndex);
  if (a != b) op_swap_dbs(call, a, b);
  call.reply.simple("OK");
}

CommandSpec row(std::string name, int arity, uint32_t flags, int first, int last, Handler h,
                std::string acl) {
  const int step = first == 0 ? 0 : 1;
  return CommandSpec{std::move(name), arity, flags, first, last, step, h, std::move(acl), {}};
}

}  // namespace

void register_key_commands(CommandTable& t) {
  constexpr uint32_t kWriteFast = kWrite | kFast;
  constexpr uint32_t kReadFast = kReadonly | kFast;
  t.add(row("del", -2, kWrite, 1, -1, del_command, "@keyspace @write @slow"));
  t.add(row("unlink", -2, kWriteFast, 1, -1, unlink_command, "@keyspace @write @fast"));
  t.add(row("exists", -2, kReadFast, 1, -1, exists_command, "@keyspace @read @fast"));
  t.add(row("touch", -2, kReadFast, 1, -1, touch_command, "@keyspace @read @fast"));
  t.add(row("type", 2, kReadFast, 1, 1, type_command, "@keyspace @read @fast"));
  t.add(row("keys", 2, kReadonly, 0, 0, keys_command, "@keyspace @read @slow @dangerous"));
  t.add(row("scan", -2, kReadonly, 0, 0, scan_command, "@keyspace @read @slow"));
  t.add(row("randomkey", 1, kReadonly, 0, 0, randomkey_command, "@keyspace @read @slow"));
  t.add(row("rename", 3, kWrite, 1, 2, rename_command, "@keyspace @write @slow"));
  t.add(row("renamenx", 3, kWriteFast, 1, 2, renamenx_command, "@keyspace @write @fast"));
  t.add(row("copy", -3, kWrite | kDenyOom, 1, 2, copy_command, "@keyspace @write @slow"));
  t.add(row("move", 3, kWriteFast, 1, 1, move_command, "@keyspace @write @fast"));
  t.add(row("swapdb", 3, kWriteFast, 0, 0, swapdb_command, "@keyspace @write @fast @dangerous"));
}

}  // namespace lawnkv
