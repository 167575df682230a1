// Stream claims: XCLAIM (IDLE, TIME, RETRYCOUNT, FORCE, JUSTID, LASTID) and
// XAUTOCLAIM (COUNT, JUSTID, and Redis 7.0's list of deleted IDs), which
// hand pending entries of a consumer group to another consumer, with Redis
// 7.0's replies and errors. Both record what they did as XCLAIM records
// (streams_ops.hpp), never their own arguments: a claim depends on idle
// times, which a replay must not read from its clock.

#include <climits>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/streams_errors.hpp"
#include "commands/streams_ops.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

using types::StreamConsumer;
using types::StreamGroup;
using types::StreamId;
using types::StreamNack;

constexpr std::string_view kXclaimMinIdle = "ERR Invalid min-idle-time argument for XCLAIM";
constexpr std::string_view kXclaimIdle = "ERR Invalid IDLE option argument for XCLAIM";
constexpr std::string_view kXclaimTime = "ERR Invalid TIME option argument for XCLAIM";
constexpr std::string_view kXclaimRetryCount = "ERR Invalid RETRYCOUNT option argument for XCLAIM";
constexpr std::string_view kXclaimUnknownOption = "ERR Unrecognized XCLAIM option '%s'";  // format_error
constexpr std::string_view kXautoclaimMinIdle = "ERR Invalid min-idle-time argument for XAUTOCLAIM";
constexpr std::string_view kXautoclaimCount = "ERR COUNT must be > 0";

/* XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds]
 *        [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid] */
void xclaim_command(Call& call) {
  const auto& argv = call.argv;
  const auto found = lookup<types::Stream>(call, argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  types::Stream* s = found.value;
  StreamGroup* g = s ? s->group(argv[2]) : nullptr;
  if (!g) return call.error(format_error(kNoKeyOrGroup, {argv[1], argv[2]}));
  long long minidle;
  if (!integer_or_reply(call, argv[4], &minidle, kXclaimMinIdle)) return;
  if (minidle < 0) minidle = 0;
  std::vector<StreamId> ids;
  size_t j = 5;
  for (; j < argv.size(); j++) {
    StreamId id;
    // The first argument that is not an ID starts the options.
    if (!parse_stream_id(argv[j], 0, true, nullptr, &id)) break;
    ids.push_back(id);
  }
  const int64_t now = stream_command_now(call);
  long long retrycount = -1, deliverytime = -1;
  bool force = false, justid = false;
  StreamId last_id;
  for (; j < argv.size(); j++) {
    const bool more = j + 1 < argv.size();
    const std::string_view opt = argv[j];
    if (iequals(opt, "force")) {
      force = true;
    } else if (iequals(opt, "justid")) {
      justid = true;
    } else if (iequals(opt, "idle") && more) {
      if (!integer_or_reply(call, argv[++j], &deliverytime, kXclaimIdle)) return;
      deliverytime = now - deliverytime;
    } else if (iequals(opt, "time") && more) {
      if (!integer_or_reply(call, argv[++j], &deliverytime, kXclaimTime)) return;
    } else if (iequals(opt, "retrycount") && more) {
      if (!integer_or_reply(call, argv[++j], &retrycount, kXclaimRetryCount)) return;
    } else if (iequals(opt, "lastid") && more) {
      if (!stream_id_or_reply(call, argv[++j], 0, true, nullptr, &last_id)) return;
    } else {
      return call.error(format_error(kXclaimUnknownOption, {opt}));
    }
  }
  call.data.effects.drop_own();
  bool propagate_last_id = false;
  if (last_id > g->last_id) {
    g->last_id = last_id;
    propagate_last_id = true;
  }
  if (deliverytime != -1) {
    if (deliverytime < 0 || deliverytime > now) deliverytime = now;
  } else {
    deliverytime = now;
  }
  StreamConsumer* consumer = nullptr;
  std::vector<types::StreamEntry> out;
  for (const auto id : ids) {
    auto it = g->pel.find(id);
    types::StreamEntry e;
    if (!s->find(id, &e)) {
      if (it != g->pel.end()) {
        StreamNack gone = it->second;
        if (gone.consumer) record_stream_claim(call, argv[1], argv[2], *g, id, gone);
        propagate_last_id = false;
        g->ack(id);
        call.data.changed();
      }
      continue;
    }
    if (force && it == g->pel.end()) it = g->pel.emplace(id, StreamNack{}).first;
    if (it == g->pel.end()) continue;
    if (it->second.consumer && minidle && now - it->second.delivery_time < minidle) continue;
    if (!consumer) consumer = stream_consumer_or_create(call, g, argv[1], argv[3]);
    StreamNack& nack = g->claim(id, consumer);
    nack.delivery_time = deliverytime;
    if (retrycount >= 0) {
      nack.delivery_count = static_cast<uint64_t>(retrycount);
    } else if (!justid) {
      nack.delivery_count++;
    }
    e.id = id;
    out.push_back(e);
    record_stream_claim(call, argv[1], argv[2], *g, id, nack);
    propagate_last_id = false;
    call.data.changed();
  }
  if (propagate_last_id) {
    record_stream_group_id(call, argv[1], argv[2], *g);
    call.data.changed();
  }
  if (justid) {
    call.reply.array(out.size());
    for (const auto& e : out) reply_stream_id(call.reply, e.id);
    return;
  }
  reply_stream_entries(call.reply, out);
}

/* XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID] */
void xautoclaim_command(Call& call) {
  const auto& argv = call.argv;
  long long minidle;
  if (!integer_or_reply(call, argv[4], &minidle, kXautoclaimMinIdle)) return;
  if (minidle < 0) minidle = 0;
  StreamId start;
  const bool startex = argv[5].size() > 1 && argv[5][0] == '(';
  if (!stream_id_or_reply(call, startex ? argv[5].substr(1) : argv[5], 0, startex, nullptr, &start)) return;
  if (startex && !start.incr()) return call.error(kInvalidStartId);
  long long count = 100;
  bool justid = false;
  constexpr long long kMaxCount = LONG_MAX / 16;  // Redis's LONG_MAX / max(sizeof(streamID), 10)
  for (size_t j = 6; j < argv.size(); j++) {
    if (iequals(argv[j], "count") && j + 1 < argv.size()) {
      long long n;
      if (!integer_or_reply(call, argv[j + 1], &n, kXautoclaimCount)) return;
      if (n < 1 || n > kMaxCount) return call.error(kXautoclaimCount);
      count = n;
      j++;
    } else if (iequals(argv[j], "justid")) {
      justid = true;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const auto found = lookup<types::Stream>(call, argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  types::Stream* s = found.value;
  StreamGroup* g = s ? s->group(argv[2]) : nullptr;
  if (!g) return call.error(format_error(kNoKeyOrGroup, {argv[1], argv[2]}));
  call.data.effects.drop_own();
  long long attempts = count * 10;
  const int64_t now = call.now_ms;
  StreamConsumer* consumer = nullptr;
  std::vector<types::StreamEntry> claimed;
  std::vector<StreamId> deleted;
  auto it = g->pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != g->pel.end()) {
    const StreamId id = it->first;
    ++it;
    types::StreamEntry e;
    if (!s->find(id, &e)) {
      record_stream_claim(call, argv[1], argv[2], *g, id, g->pel.find(id)->second);
      g->ack(id);
      call.data.changed();
      deleted.push_back(id);
      count--;
      continue;
    }
    const StreamNack& was = g->pel.find(id)->second;
    if (minidle && now - was.delivery_time < minidle) continue;
    if (!consumer) consumer = stream_consumer_or_create(call, g, argv[1], argv[3]);
    StreamNack& nack = g->claim(id, consumer);
    nack.delivery_time = now;
    if (!justid) nack.delivery_count++;
    e.id = id;
    claimed.push_back(std::move(e));
    count--;
    record_stream_claim(call, argv[1], argv[2], *g, id, nack);
    call.data.changed();
  }
  auto& r = call.reply;
  r.array(3);
  reply_stream_id(r, it == g->pel.end() ? StreamId{} : it->first);
  if (justid) {
    r.array(claimed.size());
    for (const auto& e : claimed) reply_stream_id(r, e.id);
  } else {
    reply_stream_entries(r, claimed);
  }
  r.array(deleted.size());
  for (const auto id : deleted) reply_stream_id(r, id);
}

}  // namespace

void register_stream_claim_commands(CommandTable& t) {
  t.add({
    {.name = "xclaim", .arity = -6, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
     .tips = "nondeterministic_output",
     .key_flags = "RW update",
     .handler = xclaim_command},
    {.name = "xautoclaim", .arity = -6, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "6.2.0", .complexity = "O(1) if COUNT is small.",
     .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
     .tips = "nondeterministic_output",
     .key_flags = "RW delete",
     .handler = xautoclaim_command},
  });
}

}  // namespace lawnkv
