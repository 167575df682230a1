// The string commands (the Cmd of the Op/Cmd split): argument and option
// parsing, lookups, replies and keyspace events, in the order Redis 7.0's
// t_string.c produces them. The changes to the store are strings_ops.cpp.
//
// Order matters twice. Errors: each command validates its arguments and looks
// its key up in Redis's order (SET parses the expire time before GET looks the
// key up; GETEX looks the key up first). Replies and events: a RESP3 client
// subscribed to its own keyspace events sees the push messages and its reply
// interleaved, so commands that reply the old value (GETSET, GETDEL, GETEX,
// SET ... GET) reply before they change the key, the others after.

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "commands/families.hpp"
#include "commands/strings_ops.hpp"
#include "commands/time_args.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kOffsetOutOfRange = "ERR offset is out of range";
constexpr std::string_view kDecrementOverflow = "ERR decrement would overflow";

// Replies the error for a failed op.
void reply_op_error(Call& call, OpStatus status) {
  switch (status) {
    case OpStatus::kWrongType: return call.error(err::kWrongType);
    case OpStatus::kNotInteger: return call.error(err::kNotInteger);
    case OpStatus::kNotFloat: return call.error(err::kNotFloat);
    case OpStatus::kOverflow: return call.error(err::kOverflow);
    case OpStatus::kNanOrInfinity: return call.error(err::kNanOrInfinity);
    case OpStatus::kTooLong: return call.error(err::kStringTooLong);
    case OpStatus::kInvalidExpire: return reply_invalid_expire_time(call);
    case OpStatus::kOk:
    case OpStatus::kNoKey:
    case OpStatus::kKeyExists:
    case OpStatus::kSkipped:
    case OpStatus::kNotHll:
    case OpStatus::kCorruptHll: break;  // not failures of the string ops
  }
}

// --- Options of SET and GETEX ----------------------------------------------

// The two grammars that share the option words (Redis's
// parseExtendedStringArgumentsOrReply).
enum Grammar : uint8_t { kSetGrammar = 1, kGetexGrammar = 2 };

enum Option : uint32_t {
  kNx = 1u << 0,
  kXx = 1u << 1,
  kGet = 1u << 2,
  kKeepTtl = 1u << 3,
  kPersist = 1u << 4,
  kEx = 1u << 5,
  kPx = 1u << 6,
  kExat = 1u << 7,
  kPxat = 1u << 8,
};
constexpr uint32_t kExpireOptions = kEx | kPx | kExat | kPxat;
// At most one of these, though one may be repeated ("EX 1 EX 2": the last wins).
constexpr uint32_t kTtlOptions = kKeepTtl | kPersist | kExpireOptions;

struct OptionRow {
  std::string_view name;
  uint32_t bit;
  uint32_t excludes;  // options that make this one a syntax error
  uint8_t grammars;
  bool takes_value;
};

constexpr uint8_t kBoth = kSetGrammar | kGetexGrammar;
constexpr OptionRow kOptionRows[] = {
    {"nx", kNx, kXx, kSetGrammar, false},
    {"xx", kXx, kNx, kSetGrammar, false},
    {"get", kGet, 0, kSetGrammar, false},
    {"keepttl", kKeepTtl, kTtlOptions & ~kKeepTtl, kSetGrammar, false},
    {"persist", kPersist, kTtlOptions & ~kPersist, kGetexGrammar, false},
    {"ex", kEx, kTtlOptions & ~kEx, kBoth, true},
    {"px", kPx, kTtlOptions & ~kPx, kBoth, true},
    {"exat", kExat, kTtlOptions & ~kExat, kBoth, true},
    {"pxat", kPxat, kTtlOptions & ~kPxat, kBoth, true},
};

// The row of an option word is picked by the word's length and first letter
// (no two rows share both: checked when this compiles), then confirmed with
// one case-insensitive comparison, instead of trying every row.
constexpr size_t kOptionMaxLen = 7;
using OptionIndex = std::array<std::array<int8_t, 32>, kOptionMaxLen + 1>;  // -1: no row

constexpr OptionIndex make_option_index() {
  OptionIndex index{};
  for (auto& by_letter : index) by_letter.fill(-1);
  for (size_t i = 0; i < std::size(kOptionRows); ++i) {
    const std::string_view name = kOptionRows[i].name;
    // A throw in a constant expression fails the build.
    if (name.size() > kOptionMaxLen) throw "option name longer than kOptionMaxLen";
    int8_t& slot = index[name.size()][name[0] & 31];  // & 31 folds a letter's case
    if (slot != -1) throw "two options share a length and first letter";
    slot = static_cast<int8_t>(i);
  }
  return index;
}
constexpr OptionIndex kOptionIndex = make_option_index();

// Redis reads option words as C strings: "ex\0junk" is EX.
const OptionRow* find_option(std::string_view arg) {
  const std::string_view word = c_string(arg);
  if (word.empty() || word.size() > kOptionMaxLen) return nullptr;
  const int8_t i = kOptionIndex[word.size()][word[0] & 31];
  return i >= 0 && iequals_lower(word, kOptionRows[i].name) ? &kOptionRows[i] : nullptr;
}

// An expire argument as given: its text (parsed only when the command is
// ready to, as Redis), its unit, and whether it is a timestamp.
struct ExpireArg {
  std::string_view text;
  strings::TimeUnit unit = strings::TimeUnit::kSeconds;
  bool absolute = false;
};

struct StringOptions {
  uint32_t flags = 0;
  std::optional<ExpireArg> expire;
  bool has(uint32_t bit) const { return (flags & bit) != 0; }
};

// Parses the options after the fixed arguments; nullopt is a syntax error
// (an unknown word, a conflicting option, or an expire option without value).
std::optional<StringOptions> parse_string_options(std::span<const std::string_view> args,
                                                  Grammar grammar) {
  StringOptions opts;
  for (size_t i = 0; i < args.size(); ++i) {
    const OptionRow* row = find_option(args[i]);
    if (row == nullptr || (row->grammars & grammar) == 0 || opts.has(row->excludes))
      return std::nullopt;
    if (row->takes_value) {
      if (i + 1 == args.size()) return std::nullopt;
      const bool ms = row->bit == kPx || row->bit == kPxat;
      opts.expire = ExpireArg{args[++i], ms ? strings::TimeUnit::kMilliseconds : strings::TimeUnit::kSeconds,
                              row->bit == kExat || row->bit == kPxat};
    }
    opts.flags |= row->bit;
  }
  return opts;
}

// Parses an expire argument into a deadline, or replies the error
// ("value is not an integer" or "invalid expire time") and returns false.
bool deadline_or_reply(Call& call, const ExpireArg& arg, strings::Deadline* out) {
  long long value;
  if (!integer_or_reply(call, arg.text, &value)) return false;
  const auto r = strings::resolve_deadline(value, arg.unit, arg.absolute, call.now_ms);
  if (!r.ok()) {
    reply_op_error(call, r.status);
    return false;
  }
  *out = r.value;
  return true;
}

// --- Reading -----------------------------------------------------------------

// Redis's getGenericCommand: replies the string at key (or null) and returns
// true, or replies WRONGTYPE and returns false.
bool get_generic(Call& call, std::string_view key) {
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, key, Intent::kRead, &wrong_type);
  if (wrong_type) return false;
  if (e) {
    call.reply.bulk(e->str());
  } else {
    call.reply.null();
  }
  return true;
}

/* GET key */
void get_command(Call& call) { get_generic(call, call.argv[1]); }

/* MGET key [key ...] */
void mget_command(Call& call) {
  call.reply.array(call.argv.size() - 1);
  for (std::string_view key : call.argv.subspan(1)) {
    const store::Entry* e = lookup_read(call, key);
    if (e && e->type() == store::Type::kString) {
      call.reply.bulk(e->str());
    } else {
      call.reply.null();
    }
  }
}

/* STRLEN key */
void strlen_command(Call& call) {
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (!wrong_type) call.reply.integer(e ? static_cast<int64_t>(e->str().size()) : 0);
}

/* GETRANGE key start end (and SUBSTR, its old name) */
void getrange_command(Call& call) {
  long long start, end;
  if (!integer_or_reply(call, call.argv[2], &start)) return;
  if (!integer_or_reply(call, call.argv[3], &end)) return;
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  call.reply.bulk(e ? strings::string_range(e->str(), start, end) : std::string_view());
}

// --- Setting -----------------------------------------------------------------

// Stores value at key and publishes what Redis's setKey and its callers do:
// `new` when the key is added, then `set`.
// With expire (not null), the key also gets that deadline.
void set_and_notify(Call& call, store::Entry* found, std::string_view key, std::string_view value,
                    bool keep_ttl, const strings::Deadline* expire) {
  const auto r = strings::op_set(call.db(), found, key, value, keep_ttl, expire);
  if (r.created) call.notify(pubsub::kNew, "new", key);
  call.modified(key, pubsub::kString, "set");
}

// What SET-like commands reply when they store (ok) or not (abort: NX/XX).
enum class SetReplies { kOkOrNull, kOneOrZero };

// Redis's setGenericCommand, behind SET, SETEX, PSETEX and SETNX. With GET it
// replies the old value first and nothing else.
void set_generic(Call& call, const StringOptions& opts, std::string_view key,
                 std::string_view value, SetReplies replies) {
  strings::Deadline deadline;
  if (opts.expire && !deadline_or_reply(call, *opts.expire, &deadline)) return;
  const bool get = opts.has(kGet);
  if (get && !get_generic(call, key)) return;

  store::Entry* found = lookup_write(call, key);
  if ((opts.has(kNx) && found) || (opts.has(kXx) && !found)) {
    if (get) return;
    if (replies == SetReplies::kOneOrZero) return call.reply.integer(0);
    return call.reply.null();
  }
  // A deadline already past is kept: the key dies at its next lookup or
  // reap, with an `expired` event, as in Redis 7.0.
  set_and_notify(call, found, key, value, opts.has(kKeepTtl), opts.expire ? &deadline : nullptr);
  if (opts.expire) call.notify(pubsub::kGeneric, "expire", key);
  // Recorded with its deadline absolute, without the conditions it met.
  if (call.data.effects.active()) {
    if (opts.expire) {
      call.data.effects.replace_own({"SET", key, value, "PXAT", ll_to_string(deadline.at_ms)});
    } else if (opts.has(kKeepTtl)) {
      call.data.effects.replace_own({"SET", key, value, "KEEPTTL"});
    } else {
      call.data.effects.replace_own({"SET", key, value});
    }
  }
  if (get) return;
  if (replies == SetReplies::kOneOrZero) return call.reply.integer(1);
  call.reply.simple("OK");
}

// SET's key for COMMAND GETKEYSANDFLAGS: read too when GET is among the
// options (as Redis's setGetKeys), else only overwritten.
std::string_view set_key_flags(std::span<const std::string_view> argv) {
  for (size_t i = 3; i < argv.size(); ++i)
    if (iequals(argv[i], "get")) return "RW access update";
  return "OW update";
}

/* SET key value [NX | XX] [GET] [EX seconds | PX milliseconds |
 *   EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] */
void set_command(Call& call) {
  const auto opts = parse_string_options(call.argv.subspan(3), kSetGrammar);
  if (!opts) return call.error(err::kSyntax);
  set_generic(call, *opts, call.argv[1], call.argv[2], SetReplies::kOkOrNull);
}

/* SETNX key value */
void setnx_command(Call& call) {
  set_generic(call, StringOptions{kNx, std::nullopt}, call.argv[1], call.argv[2],
              SetReplies::kOneOrZero);
}

/* SETEX key seconds value */
void setex_command(Call& call) {
  const StringOptions opts{kEx, ExpireArg{call.argv[2], strings::TimeUnit::kSeconds, false}};
  set_generic(call, opts, call.argv[1], call.argv[3], SetReplies::kOkOrNull);
}

/* PSETEX key milliseconds value */
void psetex_command(Call& call) {
  const StringOptions opts{kPx, ExpireArg{call.argv[2], strings::TimeUnit::kMilliseconds, false}};
  set_generic(call, opts, call.argv[1], call.argv[3], SetReplies::kOkOrNull);
}

/* GETSET key value */
void getset_command(Call& call) {
  const std::string_view key = call.argv[1];
  if (!get_generic(call, key)) return;
  set_and_notify(call, lookup_write(call, key), key, call.argv[2], false, nullptr);
}

// MSET and MSETNX: with nx nothing is set when any key exists.
void mset_generic(Call& call, bool nx) {
  if (call.argv.size() % 2 == 0)
    return call.error(err::wrong_arity(call.spec->name));
  if (nx) {
    for (size_t i = 1; i < call.argv.size(); i += 2)
      if (lookup_write(call, call.argv[i])) return call.reply.integer(0);
  }
  for (size_t i = 1; i < call.argv.size(); i += 2)
    set_and_notify(call, lookup_write(call, call.argv[i]), call.argv[i], call.argv[i + 1], false, nullptr);
  if (nx) return call.reply.integer(1);
  call.reply.simple("OK");
}

/* MSET key value [key value ...] */
void mset_command(Call& call) { mset_generic(call, false); }

/* MSETNX key value [key value ...] */
void msetnx_command(Call& call) { mset_generic(call, true); }

// --- Reading and changing ------------------------------------------------------

/* GETDEL key */
void getdel_command(Call& call) {
  const std::string_view key = call.argv[1];
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, key, Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (e == nullptr) return call.reply.null();
  call.reply.bulk(e->str());
  call.db().remove(key);
  call.modified(key, pubsub::kGeneric, "del");
}

/* GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
 *   PXAT unix-time-milliseconds | PERSIST] */
void getex_command(Call& call) {
  const std::string_view key = call.argv[1];
  const auto opts = parse_string_options(call.argv.subspan(2), kGetexGrammar);
  if (!opts) return call.error(err::kSyntax);
  bool wrong_type;
  store::Entry* e = lookup_or_reply<store::Entry>(call, key, Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (e == nullptr) return call.reply.null();
  strings::Deadline deadline;
  if (opts->expire && !deadline_or_reply(call, *opts->expire, &deadline)) return;
  call.reply.bulk(e->str());

  if (opts->expire && opts->expire->absolute && deadline.at_ms <= call.now_ms) {
    // A timestamp already reached deletes the key: a `del`, not an `expired`.
    call.db().remove(key);
    call.modified(key, pubsub::kGeneric, "del");
    call.data.effects.replace_own({"DEL", key});
  } else if (opts->expire) {
    call.db().set_deadline(*e, deadline.at_ms, deadline.ttl_ms);
    call.modified(key, pubsub::kGeneric, "expire");
    if (call.data.effects.active()) call.data.effects.replace_own({"PEXPIREAT", key, ll_to_string(deadline.at_ms)});
  } else if (opts->has(kPersist) && e->has_ttl()) {
    call.db().clear_deadline(*e);
    call.modified(key, pubsub::kGeneric, "persist");
    call.data.effects.replace_own({"PERSIST", key});
  }
}

// --- Changing in place ---------------------------------------------------------

// Publishes a successful in-place change: `new` if the op added the key, then
// the command's event.
void notify_change(Call& call, bool created, std::string_view event, std::string_view key) {
  if (created) call.notify(pubsub::kNew, "new", key);
  call.modified(key, pubsub::kString, event);
}

// INCR, DECR, INCRBY and DECRBY.
void incr_decr(Call& call, long long delta) {
  const std::string_view key = call.argv[1];
  const auto r = strings::op_incr_by(call.db(), lookup_write(call, key), key, delta);
  if (!r.ok()) return reply_op_error(call, r.status);
  notify_change(call, r.created, "incrby", key);
  call.reply.integer(r.value);
}

/* INCR key */
void incr_command(Call& call) { incr_decr(call, 1); }

/* DECR key */
void decr_command(Call& call) { incr_decr(call, -1); }

/* INCRBY key increment */
void incrby_command(Call& call) {
  long long incr;
  if (integer_or_reply(call, call.argv[2], &incr)) incr_decr(call, incr);
}

/* DECRBY key decrement */
void decrby_command(Call& call) {
  long long decr;
  if (!integer_or_reply(call, call.argv[2], &decr)) return;
  if (decr == LLONG_MIN) return call.error(kDecrementOverflow);
  incr_decr(call, -decr);
}

/* INCRBYFLOAT key increment */
void incrbyfloat_command(Call& call) {
  const std::string_view key = call.argv[1];
  store::Entry* found = lookup_write(call, key);
  if (found && found->type() != store::Type::kString) return call.error(err::kWrongType);
  long double incr;
  if (!long_double_or_reply(call, call.argv[2], &incr)) return;
  const auto r = strings::op_incr_by_float(call.db(), found, key, incr);
  if (!r.ok()) return reply_op_error(call, r.status);
  notify_change(call, r.created, "incrbyfloat", key);
  call.reply.bulk(r.value);
  // The value as written: replaying the sum could round otherwise.
  call.data.effects.replace_own({"SET", key, r.value, "KEEPTTL"});
}

/* APPEND key value */
void append_command(Call& call) {
  const std::string_view key = call.argv[1];
  const auto r = strings::op_append(call.db(), lookup_write(call, key), key, call.argv[2],
                                    call.cfg().proto_max_bulk_len);
  if (!r.ok()) return reply_op_error(call, r.status);
  notify_change(call, r.created, "append", key);
  call.reply.integer(static_cast<int64_t>(r.value));
}

/* SETRANGE key offset value */
void setrange_command(Call& call) {
  const std::string_view key = call.argv[1];
  const std::string_view value = call.argv[3];
  long long offset;
  if (!integer_or_reply(call, call.argv[2], &offset)) return;
  if (offset < 0) return call.error(kOffsetOutOfRange);
  const auto r = strings::op_set_range(call.db(), lookup_write(call, key), key, offset, value,
                                       call.cfg().proto_max_bulk_len);
  if (!r.ok()) return reply_op_error(call, r.status);
  if (!value.empty()) notify_change(call, r.created, "setrange", key);
  call.reply.integer(static_cast<int64_t>(r.value));
}

}  // namespace

void register_string_commands(CommandTable& t) {
  t.add({
    {.name = "append", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Adds text to the end of a string value",
     .key_flags = "RW insert",
     .handler = append_command},
    {.name = "decr", .arity = 2, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Subtracts one from an integer value",
     .key_flags = "RW access update",
     .handler = decr_command},
    {.name = "decrby", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Subtracts a number from an integer value",
     .key_flags = "RW access update",
     .handler = decrby_command},
    {.name = "get", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns the string value of a key",
     .key_flags = "RO access",
     .handler = get_command},
    {.name = "getdel", .arity = 2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Returns a string value and deletes its key",
     .key_flags = "RW access delete",
     .handler = getdel_command},
    {.name = "getex", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Returns a string value and sets or clears its time to live",
     .key_flags = "RW access update",
     .key_notes = "RW and UPDATE because it changes the TTL",
     .handler = getex_command},
    {.name = "getrange", .arity = 4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @string @slow",
     .group = "string", .since = "2.4.0", .complexity = "O(N) where N is the length of the returned part",
     .summary = "Returns part of a string value",
     .key_flags = "RO access",
     .handler = getrange_command},
    {.name = "getset", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Replaces a string value and returns the old one",
     .key_flags = "RW access update",
     .handler = getset_command},
    {.name = "incr", .arity = 2, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Adds one to an integer value",
     .key_flags = "RW access update",
     .handler = incr_command},
    {.name = "incrby", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Adds a number to an integer value",
     .key_flags = "RW access update",
     .handler = incrby_command},
    {.name = "incrbyfloat", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Adds a decimal number to a numeric value",
     .key_flags = "RW access update",
     .handler = incrbyfloat_command},
    {.name = "mget", .arity = -2, .flags = kReadonly | kFast, .keys = {1, -1, 1},
     .acl = "@read @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(N) where N is the number of keys",
     .summary = "Returns the string values of several keys",
     .tips = "request_policy:multi_shard",
     .key_flags = "RO access",
     .handler = mget_command},
    {.name = "mset", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, -1, 2},
     .acl = "@write @string @slow",
     .group = "string", .since = "1.0.1", .complexity = "O(N) where N is the number of keys",
     .summary = "Sets several keys to string values",
     .tips = "request_policy:multi_shard response_policy:all_succeeded",
     .key_flags = "OW update",
     .handler = mset_command},
    {.name = "msetnx", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, -1, 2},
     .acl = "@write @string @slow",
     .group = "string", .since = "1.0.1", .complexity = "O(N) where N is the number of keys",
     .summary = "Sets several keys to string values only if none of them exists",
     .tips = "request_policy:multi_shard response_policy:agg_min",
     .key_flags = "OW insert",
     .handler = msetnx_command},
    {.name = "psetex", .arity = 4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @string @slow",
     .group = "string", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Sets a string value with a time to live in milliseconds",
     .key_flags = "OW update",
     .handler = psetex_command},
    {.name = "set", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @string @slow",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Sets a string value, optionally with a time to live or a condition",
     .key_flags = "RW access update variable_flags",
     .key_notes = "RW and ACCESS due to the optional `GET` argument",
     .variable_key_flags = set_key_flags,
     .handler = set_command},
    {.name = "setex", .arity = 4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @string @slow",
     .group = "string", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Sets a string value with a time to live in seconds",
     .key_flags = "OW update",
     .handler = setex_command},
    {.name = "setnx", .arity = 3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @string @fast",
     .group = "string", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Sets a string value only if the key does not exist",
     .key_flags = "OW insert",
     .handler = setnx_command},
    {.name = "setrange", .arity = 4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @string @slow",
     .group = "string", .since = "2.2.0", .complexity = "O(1), not counting the copy of the new part",
     .summary = "Overwrites part of a string value from an offset",
     .key_flags = "RW update",
     .handler = setrange_command},
    {.name = "strlen", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @string @fast",
     .group = "string", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Returns the length of a string value",
     .key_flags = "RO",
     .handler = strlen_command},
    {.name = "substr", .arity = 4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @string @slow",
     .group = "string", .since = "1.0.0", .complexity = "O(N) where N is the length of the returned part",
     .summary = "Returns part of a string value (old name of GETRANGE)",
     .key_flags = "RO access",
     .handler = getrange_command},
  });
}

}  // namespace lawnkv
