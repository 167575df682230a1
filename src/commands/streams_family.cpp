// Stream commands on entries: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM and
// XREAD, with Redis 7.0's replies, errors and keyspace events (xadd, xtrim,
// xdel). The value is types::Stream; consumer groups are
// streams_groups_family.cpp's. An emptied stream stays, as in Redis.
//
// Effects: XADD records the ID it used (a generated one in place of "*" or
// "<ms>-*"), and an approximate trim as the exact one it made ("MAXLEN =
// <length after>", "MINID = <first ID after>"), as Redis rewrites them, so a
// replay adds and trims exactly the same entries.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/streams_errors.hpp"
#include "commands/streams_ops.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "expiry/timer.hpp"

namespace lawnkv {

namespace {

using types::Stream;
using types::StreamId;
using types::StreamTrim;

constexpr std::string_view kTrimBoth = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
constexpr std::string_view kLimitNoStrategy = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
constexpr std::string_view kXtrimNoStrategy = "ERR syntax error, XTRIM must be called with a trimming strategy";
constexpr std::string_view kLimitNoApprox = "ERR syntax error, LIMIT cannot be used without the special ~ option";
constexpr std::string_view kMaxlenNegative = "ERR The MAXLEN argument must be >= 0.";
constexpr std::string_view kLimitNegative = "ERR The LIMIT argument must be >= 0.";
constexpr std::string_view kIdZero = "ERR The ID specified in XADD must be greater than 0-0";
constexpr std::string_view kIdExhausted = "ERR The stream has exhausted the last possible ID, unable to add more items";
constexpr std::string_view kIdTooSmall = "ERR The ID specified in XADD is equal or smaller than the target stream top item";
constexpr std::string_view kTooLarge = "ERR Elements are too large to be stored";
constexpr std::string_view kGroupOnlyXreadgroup =
    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
constexpr std::string_view kNoackOnlyXreadgroup =
    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
constexpr std::string_view kGtOnlyXreadgroup =
    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.";

// XADD's and XTRIM's options, as streamParseAddOrTrimArgsOrReply reads them.
struct AddTrimArgs {
  StreamTrim trim;
  size_t strategy_arg = 0;  // where the count or ID of MAXLEN/MINID is
  bool no_mkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamId id;
  size_t id_pos = 0;
};

bool add_trim_args_or_reply(Call& call, bool xadd, AddTrimArgs* a) {
  const auto& argv = call.argv;
  bool limit_given = false;
  size_t i = 2;
  for (; i < argv.size(); i++) {
    const size_t more = argv.size() - 1 - i;
    const std::string_view opt = argv[i];
    if (xadd && opt == "*") break;
    const bool maxlen = iequals(opt, "maxlen");
    if ((maxlen || iequals(opt, "minid")) && more) {
      if (a->trim.by != StreamTrim::By::kNone) return call.error(kTrimBoth), false;
      a->trim.approx = false;
      const std::string_view next = argv[i + 1];
      if (more >= 2 && next == "~") {
        a->trim.approx = true;
        i++;
      } else if (more >= 2 && next == "=") {
        i++;
      }
      if (maxlen) {
        long long n;
        if (!integer_or_reply(call, argv[i + 1], &n)) return false;
        if (n < 0) return call.error(kMaxlenNegative), false;
        a->trim.maxlen = static_cast<uint64_t>(n);
        a->trim.by = StreamTrim::By::kMaxLen;
      } else {
        if (!stream_id_or_reply(call, argv[i + 1], 0, true, nullptr, &a->trim.minid)) return false;
        a->trim.by = StreamTrim::By::kMinId;
      }
      i++;
      a->strategy_arg = i;
    } else if (iequals(opt, "limit") && more) {
      long long n;
      if (!integer_or_reply(call, argv[i + 1], &n)) return false;
      if (n < 0) return call.error(kLimitNegative), false;
      a->trim.limit = n;
      limit_given = true;
      i++;
    } else if (xadd && iequals(opt, "nomkstream")) {
      a->no_mkstream = true;
    } else if (xadd) {
      if (!stream_id_or_reply(call, opt, 0, true, &a->seq_given, &a->id)) return false;
      a->id_given = true;
      break;
    } else {
      return call.error(err::kSyntax), false;
    }
  }
  a->id_pos = i;
  if (a->trim.limit && a->trim.by == StreamTrim::By::kNone) return call.error(kLimitNoStrategy), false;
  if (!xadd && a->trim.by == StreamTrim::By::kNone) return call.error(kXtrimNoStrategy), false;
  if (call.session.detached) {
    // The AOF loader (and a replica's master): trims were made exact.
    a->trim.limit = 0;
  } else if (limit_given) {
    if (!a->trim.approx) return call.error(kLimitNoApprox), false;
  } else if (a->trim.approx) {
    int64_t limit = 100 * call.cfg().stream_node_max_entries;
    if (limit <= 0) limit = 10000;
    if (limit > 1000000) limit = 1000000;
    a->trim.limit = limit;
  }
  return true;
}

// After an approximate trim: the record says "= <what is left>".
void rewrite_approx_trim(const Stream& s, const AddTrimArgs& a, std::vector<std::string>* rec) {
  (*rec)[a.strategy_arg - 1] = "=";
  if (a.trim.by == StreamTrim::By::kMaxLen) {
    (*rec)[a.strategy_arg] = std::to_string(s.length());
  } else {
    StreamId first;
    if (!s.edge_id(true, true, &first)) first = {};
    (*rec)[a.strategy_arg] = first.str();
  }
}

/* XADD key [NOMKSTREAM] [(MAXLEN | MINID) [= | ~] threshold [LIMIT count]] (* | id) field value
 *      [field value ...] */
void xadd_command(Call& call) {
  AddTrimArgs a;
  if (!add_trim_args_or_reply(call, true, &a)) return;
  const size_t field_pos = a.id_pos + 1;
  if (call.argv.size() < field_pos + 2 || (call.argv.size() - field_pos) % 2 == 1)
    return call.error(err::wrong_arity(call.spec->name));
  if (a.id_given && a.seq_given && a.id.zero()) return call.error(kIdZero);
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value && a.no_mkstream) return call.reply.null();
  const StreamId last = found.value ? found.value->last_id() : StreamId{};
  if (last == StreamId::max()) return call.error(kIdExhausted);
  StreamId id;
  if (!a.id_given) {
    const auto now = static_cast<uint64_t>(call.now_ms);
    if (now > last.ms) {
      id = {now, 0};
    } else {
      id = last;
      id.incr();
    }
  } else if (a.seq_given) {
    id = a.id;
  } else if (last.ms == a.id.ms) {
    if (last.seq == UINT64_MAX) return call.error(kIdTooSmall);
    id = {last.ms, last.seq + 1};
  } else {
    id = a.id;
  }
  if (id <= last) return call.error(kIdTooSmall);
  size_t total = 0;
  for (size_t i = field_pos; i < call.argv.size(); i++) total += call.argv[i].size();
  if (total > (size_t{1} << 30)) return call.error(kTooLarge);
  Stream* s = found.value ? found.value : stream_or_create(call, call.argv[1]);
  const std::vector<std::string_view> fields(call.argv.begin() + static_cast<long>(field_pos), call.argv.end());
  s->append(id, fields, stream_limits(call));
  const std::string id_text = id.str();
  call.reply.bulk(id_text);
  call.modified(call.argv[1], pubsub::kStream, "xadd");
  if (a.trim.by != StreamTrim::By::kNone && s->trim(a.trim)) call.notify(pubsub::kStream, "xtrim", call.argv[1]);
  // Recorded with the ID it made and an approximate trim made exact.
  const bool made_id = !a.id_given || !a.seq_given;
  if ((made_id || a.trim.approx) && call.data.effects.active()) {
    std::vector<std::string> rec(call.argv.begin(), call.argv.end());
    if (a.trim.approx) rewrite_approx_trim(*s, a, &rec);
    if (made_id) rec[a.id_pos] = id_text;
    call.data.effects.replace_own(std::move(rec));
  }
}

/* XTRIM key (MAXLEN | MINID) [= | ~] threshold [LIMIT count] */
void xtrim_command(Call& call) {
  AddTrimArgs a;
  if (!add_trim_args_or_reply(call, false, &a)) return;
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.integer(0);
  Stream& s = *found.value;
  const int64_t deleted = s.trim(a.trim);
  if (deleted) {
    call.notify(pubsub::kStream, "xtrim", call.argv[1]);
    if (a.trim.approx && call.data.effects.active()) {
      std::vector<std::string> rec(call.argv.begin(), call.argv.end());
      rewrite_approx_trim(s, a, &rec);
      call.data.effects.replace_own(std::move(rec));
    }
    call.modified(call.argv[1]);
  }
  call.reply.integer(deleted);
}

/* XLEN key */
void xlen_command(Call& call) {
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(found.value->length()) : 0);
}

// One bound of XRANGE: "(" makes it exclusive (strict then: no "-"/"+").
bool interval_id_or_reply(Call& call, std::string_view arg, uint64_t missing_seq, StreamId* id, bool* ex) {
  *ex = arg.size() > 1 && arg[0] == '(';
  if (*ex) return stream_id_or_reply(call, arg.substr(1), missing_seq, true, nullptr, id);
  return stream_id_or_reply(call, arg, missing_seq, false, nullptr, id);
}

/* XRANGE key start end [COUNT count]
 * XREVRANGE key end start [COUNT count] */
void xrange_generic(Call& call, bool rev) {
  StreamId start, end;
  bool startex, endex;
  if (!interval_id_or_reply(call, call.argv[rev ? 3 : 2], 0, &start, &startex)) return;
  if (startex && !start.incr()) return call.error(kInvalidStartId);
  if (!interval_id_or_reply(call, call.argv[rev ? 2 : 3], UINT64_MAX, &end, &endex)) return;
  if (endex && !end.decr()) return call.error(kInvalidEndId);
  long long count = -1;
  for (size_t j = 4; j < call.argv.size(); j++) {
    if (iequals(call.argv[j], "count") && j + 1 < call.argv.size()) {
      if (!integer_or_reply(call, call.argv[j + 1], &count)) return;
      if (count < 0) count = 0;
      j++;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.array(0);
  if (count == 0) return call.reply.null_array();
  reply_stream_entries(call.reply,
                       stream_range(*found.value, start, end, rev, count < 0 ? 0 : static_cast<size_t>(count)));
}

void xrange_command(Call& call) { xrange_generic(call, false); }
void xrevrange_command(Call& call) { xrange_generic(call, true); }

/* XDEL key id [id ...] */
void xdel_command(Call& call) {
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.integer(0);
  std::vector<StreamId> ids(call.argv.size() - 2);
  for (size_t j = 2; j < call.argv.size(); j++)
    if (!stream_id_or_reply(call, call.argv[j], 0, true, nullptr, &ids[j - 2])) return;
  int64_t deleted = 0;
  for (const auto id : ids) deleted += found.value->erase(id) ? 1 : 0;
  if (deleted) call.modified(call.argv[1], pubsub::kStream, "xdel");
  call.reply.integer(deleted);
}

/* XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...] */
void xread_command(Call& call) {
  const auto& argv = call.argv;
  long long count = 0;
  long long block_ms = -1;
  size_t streams_arg = 0;
  for (size_t i = 1; i < argv.size(); i++) {
    const size_t more = argv.size() - 1 - i;
    const std::string_view o = argv[i];
    if (iequals(o, "block") && more) {
      if (call.session.in_script)
        return call.error(format_error(kBlockFromScript, {argv[0]}));
      i++;
      if (!integer_or_reply(call, argv[i], &block_ms, kBlockTimeoutNotInteger)) return;
      if (block_ms < 0) return call.error(err::kTimeoutNegative);
    } else if (iequals(o, "count") && more) {
      i++;
      if (!integer_or_reply(call, argv[i], &count)) return;
      if (count < 0) count = 0;
    } else if (iequals(o, "streams") && more) {
      streams_arg = i + 1;
      if ((argv.size() - streams_arg) % 2 != 0) return call.error(kUnbalancedStreams);
      break;
    } else if (iequals(o, "group") && more >= 2) {
      return call.error(kGroupOnlyXreadgroup);
    } else if (iequals(o, "noack")) {
      return call.error(kNoackOnlyXreadgroup);
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (streams_arg == 0) return call.error(err::kSyntax);
  const size_t n = (argv.size() - streams_arg) / 2;
  // Woken by a key (blocked, its "$" already made IDs): that key alone is read,
  // and only a stream whose last ID is past the one waited after serves it.
  const size_t ready = stream_ready_index(call, argv.subspan(streams_arg, n));
  const bool woken = ready < n;
  std::vector<StreamId> ids(n);
  for (size_t k = 0; k < n; k++) {
    if (woken && k != ready) continue;
    const auto found = lookup<Stream>(call, argv[streams_arg + k], Intent::kRead);
    if (found.wrong_type && !woken) return call.error(err::kWrongType);
    const std::string_view arg = argv[streams_arg + n + k];
    if (arg == "$") {
      ids[k] = found.value ? found.value->last_id() : StreamId{};
    } else if (arg == ">") {
      return call.error(kGtOnlyXreadgroup);
    } else if (!stream_id_or_reply(call, arg, 0, true, nullptr, &ids[k])) {
      return;
    }
  }
  std::vector<std::pair<std::string_view, std::vector<types::StreamEntry>>> out;
  for (size_t k = 0; k < n; k++) {
    if (woken && k != ready) continue;
    const Stream* s = lookup<Stream>(call, argv[streams_arg + k], Intent::kRead).value;
    if (!s) continue;
    if (woken) {
      if (!(s->last_id() > ids[k])) continue;
    } else {
      StreamId last;
      if (!s->length() || !s->edge_id(false, false, &last) || !(last > ids[k])) continue;
    }
    StreamId start = ids[k];
    start.incr();
    const long long limit = woken && count == 0 ? kBlockedReadDefaultCount : count;
    out.emplace_back(argv[streams_arg + k], stream_range(*s, start, StreamId::max(), false, limit));
  }
  if (out.empty()) {
    if (block_ms < 0) return call.reply.null_array();
    // Waits for entries after the IDs it was given, "$" being the last ID
    // now: it runs again with that ID in its place.
    std::vector<std::string> ids_text;
    ids_text.reserve(n);
    for (size_t k = 0; k < n; k++) ids_text.push_back(ids[k].str());
    std::vector<std::string_view> again(argv.begin(), argv.end());
    for (size_t k = 0; k < n; k++) again[streams_arg + n + k] = ids_text[k];
    const int64_t timeout_at = block_ms == 0 ? expiry::kNever : call.now_ms + block_ms;
    return call.block({.keys = argv.subspan(streams_arg, n),
                       .timeout_at_ms = timeout_at,
                       .ready_bound_ms = expiry::kNever,
                       .argv = again});
  }
  const bool resp3 = call.reply.protocol() == 3;
  if (resp3) {
    call.reply.map(out.size());
  } else {
    call.reply.array(out.size());
  }
  for (const auto& [key, entries] : out) {
    if (!resp3) call.reply.array(2);
    call.reply.bulk(key);
    reply_stream_entries(call.reply, entries);
  }
}

}  // namespace

void register_stream_commands(CommandTable& t) {
  t.add({
    {.name = "xadd", .arity = -5, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .summary = "Appends a new entry to a stream",
     .tips = "nondeterministic_output",
     .key_flags = "RW update",
     .key_notes = "UPDATE instead of INSERT because of the optional trimming feature",
     .handler = xadd_command},
    {.name = "xtrim", .arity = -4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @stream @slow",
     .group = "stream", .since = "5.0.0", .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
     .summary = "Deletes messages from the beginning of a stream",
     .tips = "nondeterministic_output",
     .key_flags = "RW delete",
     .handler = xtrim_command},
    {.name = "xlen", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(1)",
     .summary = "Return the number of messages in a stream",
     .key_flags = "RO",
     .handler = xlen_command},
    {.name = "xrange", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @stream @slow",
     .group = "stream", .since = "5.0.0", .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .summary = "Returns the messages from a stream within a range of IDs",
     .key_flags = "RO access",
     .handler = xrange_command},
    {.name = "xrevrange", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @stream @slow",
     .group = "stream", .since = "5.0.0", .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .summary = "Returns the messages from a stream within a range of IDs in reverse order",
     .key_flags = "RO access",
     .handler = xrevrange_command},
    {.name = "xdel", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .summary = "Removes the specified entries from the stream",
     .key_flags = "RW delete",
     .handler = xdel_command},
    {.name = "xread", .arity = -4, .flags = kReadonly | kBlocking | kMovableKeys, .keyword = {.word = "STREAMS", .startfrom = 1},
     .acl = "@read @stream @slow @blocking",
     .group = "stream", .since = "5.0.0", .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
     .summary = "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
     .key_flags = "RO access",
     .handler = xread_command},
  });
}

}  // namespace lawnkv
