// Pub/Sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH,
// Redis 7.0's sharded SSUBSCRIBE SUNSUBSCRIBE SPUBLISH, and PUBSUB (CHANNELS
// NUMSUB NUMPAT SHARDCHANNELS SHARDNUMSUB HELP).
//
// Every (un)subscription is confirmed by its own frame, as Redis does:
// [kind, name, count] where count is, after the change, the client's
// channels plus patterns (SUBSCRIBE and PSUBSCRIBE and their opposites) or
// its shard channels alone (SSUBSCRIBE, SUNSUBSCRIBE); a RESP2 array, a RESP3
// push (">3"). An UNSUBSCRIBE, PUNSUBSCRIBE or SUNSUBSCRIBE without arguments
// from a client with nothing to drop still gets one frame, with a null name.
// What a RESP2 client may send while subscribed (to anything, shard
// channels included) is decided by dispatch; PING's subscribed form and
// RESET live with the connection commands.
//
// lawnkv has no cluster: shard channels are served as one shard, so a shard
// channel is any name, and its key spec (Redis declares it as a key marked
// not_key, for cluster routing) is only reported.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "engine/context.hpp"
#include "pubsub/hub.hpp"

namespace lawnkv {

namespace {

pubsub::Hub& hub(Call& call) { return call.data.hub; }

// The count a confirmation carries.
size_t global_count(const Session& s) { return s.subscribed_channels() + s.subscribed_patterns(); }
size_t shard_count(const Session& s) { return s.subscribed_shard_channels(); }
using Count = size_t (*)(const Session&);

// One kind of subscription: the hub's change, the confirmation's word and count.
struct Kind {
  bool (pubsub::Hub::*change)(pubsub::Subscriber&, std::string_view);
  std::string_view word;
  Count count;
};

// [kind, name or null, count]
void reply_subscription(Call& call, const Kind& kind, const std::string_view* name) {
  // A push: it reaches the client under CLIENT REPLY OFF too.
  resp::Writer::Unmuted pushing(call.reply);
  call.reply.push(3);
  call.reply.bulk(kind.word);
  if (name) {
    call.reply.bulk(*name);
  } else {
    call.reply.null();
  }
  call.reply.integer(static_cast<int64_t>(kind.count(call.session)));
}

// SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE: each argument in turn, confirmed even
// when the client was already subscribed.
void subscribe_generic(Call& call, const Kind& kind) {
  for (size_t i = 1; i < call.argv.size(); ++i) {
    (hub(call).*kind.change)(call.session, call.argv[i]);
    reply_subscription(call, kind, &call.argv[i]);
  }
}

// UNSUBSCRIBE / PUNSUBSCRIBE / SUNSUBSCRIBE: the named ones (confirmed
// whether or not they were subscribed), or with no argument every current one.
void unsubscribe_generic(Call& call, const Kind& kind,
                         std::vector<std::string> (pubsub::Hub::*current)(const pubsub::Subscriber&) const) {
  if (call.argv.size() > 1) {
    for (size_t i = 1; i < call.argv.size(); ++i) {
      (hub(call).*kind.change)(call.session, call.argv[i]);
      reply_subscription(call, kind, &call.argv[i]);
    }
    return;
  }
  const std::vector<std::string> names = (hub(call).*current)(call.session);
  for (const std::string& name : names) {
    (hub(call).*kind.change)(call.session, name);
    const std::string_view view = name;
    reply_subscription(call, kind, &view);
  }
  if (names.empty()) reply_subscription(call, kind, nullptr);
}

constexpr std::string_view kSsubscribeDenied = "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client";

/* SUBSCRIBE channel [channel ...] */
void subscribe_command(Call& call) { subscribe_generic(call, {&pubsub::Hub::subscribe, "subscribe", global_count}); }

/* UNSUBSCRIBE [channel [channel ...]] */
void unsubscribe_command(Call& call) {
  unsubscribe_generic(call, {&pubsub::Hub::unsubscribe, "unsubscribe", global_count}, &pubsub::Hub::channels_of);
}

/* PSUBSCRIBE pattern [pattern ...] */
void psubscribe_command(Call& call) {
  subscribe_generic(call, {&pubsub::Hub::psubscribe, "psubscribe", global_count});
}

/* PUNSUBSCRIBE [pattern [pattern ...]] */
void punsubscribe_command(Call& call) {
  unsubscribe_generic(call, {&pubsub::Hub::punsubscribe, "punsubscribe", global_count}, &pubsub::Hub::patterns_of);
}

/* SSUBSCRIBE shardchannel [shardchannel ...] */
void ssubscribe_command(Call& call) {
  // Redis refuses it to a client that must get one reply per command, and
  // unlike SUBSCRIBE makes no exception for EXEC.
  if (call.session.in_exec) return call.error(kSsubscribeDenied);
  subscribe_generic(call, {&pubsub::Hub::ssubscribe, "ssubscribe", shard_count});
}

/* SUNSUBSCRIBE [shardchannel [shardchannel ...]] */
void sunsubscribe_command(Call& call) {
  unsubscribe_generic(call, {&pubsub::Hub::sunsubscribe, "sunsubscribe", shard_count},
                      &pubsub::Hub::shard_channels_of);
}

/* SPUBLISH shardchannel message */
void spublish_command(Call& call) {
  call.reply.integer(static_cast<int64_t>(hub(call).spublish(call.argv[1], call.argv[2])));
}

/* PUBLISH channel message */
void publish_command(Call& call) {
  // A RESP3 client subscribed to the channel gets its message before this
  // reply, as from Redis: both go to the same output, in this order.
  const size_t receivers = hub(call).publish(call.argv[1], call.argv[2]);
  call.reply.integer(static_cast<int64_t>(receivers));
}

/* PUBSUB CHANNELS [pattern] */
void pubsub_channels_command(Call& call) {
  if (call.argv.size() > 3) return reply_subcommand_syntax_error(call);
  const std::vector<std::string> names =
      call.argv.size() == 3 ? hub(call).active_channels(call.argv[2]) : hub(call).active_channels();
  call.reply.array_of_bulks(names);
}

/* PUBSUB SHARDCHANNELS [pattern] */
void pubsub_shardchannels_command(Call& call) {
  if (call.argv.size() > 3) return reply_subcommand_syntax_error(call);
  const std::vector<std::string> names =
      call.argv.size() == 3 ? hub(call).active_shard_channels(call.argv[2]) : hub(call).active_shard_channels();
  call.reply.array_of_bulks(names);
}

// NUMSUB / SHARDNUMSUB: an array of channel, count pairs in both protocols,
// as Redis 7.0.
void numsub_generic(Call& call, size_t (pubsub::Hub::*subscribers)(std::string_view) const) {
  call.reply.array((call.argv.size() - 2) * 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    call.reply.bulk(call.argv[i]);
    call.reply.integer(static_cast<int64_t>((hub(call).*subscribers)(call.argv[i])));
  }
}

/* PUBSUB NUMSUB [channel [channel ...]] */
void pubsub_numsub_command(Call& call) { numsub_generic(call, &pubsub::Hub::subscribers); }

/* PUBSUB SHARDNUMSUB [shardchannel [shardchannel ...]] */
void pubsub_shardnumsub_command(Call& call) { numsub_generic(call, &pubsub::Hub::shard_subscribers); }

/* PUBSUB NUMPAT */
void pubsub_numpat_command(Call& call) { call.reply.integer(static_cast<int64_t>(hub(call).pattern_count())); }

/* PUBSUB HELP */
void pubsub_help_command(Call& call) {
  reply_help(call, "PUBSUB",
             {
                 "CHANNELS [<pattern>]",
                 "    Return the currently active channels matching a <pattern> (default: '*').",
                 "NUMPAT",
                 "    Return number of subscriptions to patterns.",
                 "NUMSUB [<channel> ...]",
                 "    Return the number of subscribers for the specified channels, excluding",
                 "    pattern subscriptions(default: no channels).",
                 "SHARDCHANNELS [<pattern>]",
                 "    Return the currently active shard level channels matching a <pattern> (default: '*').",
                 "SHARDNUMSUB [<shardchannel> ...]",
                 "    Return the number of subscribers for the specified shard level channel(s)",
             });
}

}  // namespace

void register_pubsub_commands(CommandTable& t) {
  t.add({
    {.name = "psubscribe", .arity = -2, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of patterns",
     .summary = "Listens for messages on channels matching patterns",
     .handler = psubscribe_command,
     .channel_args = kSubscribePatterns},
    {.name = "publish", .arity = 3, .flags = kPubsub | kLoading | kStale | kFast | kMayReplicate,
     .acl = "@pubsub @fast",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N+M) for N subscribers and M patterns",
     .summary = "Sends a message to a channel",
     .handler = publish_command,
     .channel_args = kPublishChannel},
    {.name = "pubsub", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "pubsub", .since = "2.8.0", .complexity = "Depends on the subcommand",
     .summary = "Commands about the Pub/Sub state",
     .subcommands = {
         {.name = "pubsub|channels", .arity = -2, .flags = kPubsub | kLoading | kStale,
          .acl = "@pubsub @slow",
          .group = "pubsub", .since = "2.8.0", .complexity = "O(N) where N is the number of active channels",
          .summary = "Returns the channels that have subscribers",
          .handler = pubsub_channels_command},
         {.name = "pubsub|numsub", .arity = -2, .flags = kPubsub | kLoading | kStale,
          .acl = "@pubsub @slow",
          .group = "pubsub", .since = "2.8.0", .complexity = "O(N) where N is the number of channels",
          .summary = "Returns the subscriber count of channels",
          .handler = pubsub_numsub_command},
         {.name = "pubsub|numpat", .arity = 2, .flags = kPubsub | kLoading | kStale,
          .acl = "@pubsub @slow",
          .group = "pubsub", .since = "2.8.0", .complexity = "O(1)",
          .summary = "Returns the number of subscribed patterns",
          .handler = pubsub_numpat_command},
         {.name = "pubsub|shardchannels", .arity = -2, .flags = kPubsub | kLoading | kStale,
          .acl = "@pubsub @slow",
          .group = "pubsub", .since = "7.0.0",
          .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern "
                        "matching (relatively short shard channels).",
          .summary = "Returns the active shard channels",
          .handler = pubsub_shardchannels_command},
         {.name = "pubsub|shardnumsub", .arity = -2, .flags = kPubsub | kLoading | kStale,
          .acl = "@pubsub @slow",
          .group = "pubsub", .since = "7.0.0",
          .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
          .summary = "Returns the subscriber count of shard channels",
          .handler = pubsub_shardnumsub_command},
         {.name = "pubsub|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow",
          .group = "pubsub", .since = "6.2.0", .complexity = "O(1)",
          .summary = "Describes the PUBSUB subcommands",
          .handler = pubsub_help_command},
     }},
    {.name = "punsubscribe", .arity = -1, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of patterns",
     .summary = "Stops listening on patterns",
     .handler = punsubscribe_command},
    {.name = "spublish", .arity = 3, .flags = kPubsub | kLoading | kStale | kFast | kMayReplicate,
     .keys = {1, 1, 1},
     .acl = "@pubsub @fast",
     .group = "pubsub", .since = "7.0.0",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     .summary = "Sends a message to the subscribers of a shard channel",
     .key_flags = "not_key",
     .handler = spublish_command,
     .channel_args = kPublishChannel},
    {.name = "ssubscribe", .arity = -2, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .keys = {1, -1, 1},
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "7.0.0", .complexity = "O(N) where N is the number of shard channels to subscribe to.",
     .summary = "Listens for messages on shard channels",
     .key_flags = "not_key",
     .handler = ssubscribe_command,
     .channel_args = kSubscribeChannels},
    {.name = "subscribe", .arity = -2, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of channels",
     .summary = "Listens for messages on channels",
     .handler = subscribe_command,
     .channel_args = kSubscribeChannels},
    {.name = "sunsubscribe", .arity = -1, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .keys = {1, -1, 1},
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "7.0.0",
     .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
     .summary = "Stops listening on shard channels",
     .key_flags = "not_key",
     .handler = sunsubscribe_command},
    {.name = "unsubscribe", .arity = -1, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of channels",
     .summary = "Stops listening on channels",
     .handler = unsubscribe_command},
  });
}

}  // namespace lawnkv
