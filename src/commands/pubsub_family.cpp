// Pub/Sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH
// PUBSUB (CHANNELS NUMSUB NUMPAT HELP).
//
// Every (un)subscription is confirmed by its own frame, as Redis does:
// [kind, name, count] where count is the client's channels plus patterns
// after the change; a RESP2 array, a RESP3 push (">3"). An UNSUBSCRIBE or
// PUNSUBSCRIBE without arguments from a client with nothing to drop still
// gets one frame, with a null name. What a RESP2 client may send while
// subscribed is decided by dispatch; PING's subscribed form and RESET live
// with the connection commands. Sharded Pub/Sub (SSUBSCRIBE, SPUBLISH,
// PUBSUB SHARD*) is not served.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "engine/context.hpp"
#include "pubsub/hub.hpp"

namespace lawnkv {

namespace {

pubsub::Hub& hub(Call& call) { return call.data.hub; }

// [kind, name or null, count]
void reply_subscription(Call& call, std::string_view kind, const std::string_view* name) {
  const Session& s = call.session;
  // A push: it reaches the client under CLIENT REPLY OFF too.
  resp::Writer::Unmuted pushing(call.reply);
  call.reply.push(3);
  call.reply.bulk(kind);
  if (name) {
    call.reply.bulk(*name);
  } else {
    call.reply.null();
  }
  call.reply.integer(static_cast<int64_t>(s.subscribed_channels() + s.subscribed_patterns()));
}

using Change = bool (pubsub::Hub::*)(pubsub::Subscriber&, std::string_view);

// SUBSCRIBE / PSUBSCRIBE: each argument in turn, confirmed even when the
// client was already subscribed.
void subscribe_generic(Call& call, Change change, std::string_view kind) {
  for (size_t i = 1; i < call.argv.size(); ++i) {
    (hub(call).*change)(call.session, call.argv[i]);
    reply_subscription(call, kind, &call.argv[i]);
  }
}

// UNSUBSCRIBE / PUNSUBSCRIBE: the named ones (confirmed whether or not they
// were subscribed), or with no argument every current one.
void unsubscribe_generic(Call& call, Change change, std::string_view kind,
                         std::vector<std::string> (pubsub::Hub::*current)(const pubsub::Subscriber&) const) {
  if (call.argv.size() > 1) {
    for (size_t i = 1; i < call.argv.size(); ++i) {
      (hub(call).*change)(call.session, call.argv[i]);
      reply_subscription(call, kind, &call.argv[i]);
    }
    return;
  }
  const std::vector<std::string> names = (hub(call).*current)(call.session);
  for (const std::string& name : names) {
    (hub(call).*change)(call.session, name);
    const std::string_view view = name;
    reply_subscription(call, kind, &view);
  }
  if (names.empty()) reply_subscription(call, kind, nullptr);
}

/* SUBSCRIBE channel [channel ...] */
void subscribe_command(Call& call) { subscribe_generic(call, &pubsub::Hub::subscribe, "subscribe"); }

/* UNSUBSCRIBE [channel [channel ...]] */
void unsubscribe_command(Call& call) {
  unsubscribe_generic(call, &pubsub::Hub::unsubscribe, "unsubscribe", &pubsub::Hub::channels_of);
}

/* PSUBSCRIBE pattern [pattern ...] */
void psubscribe_command(Call& call) { subscribe_generic(call, &pubsub::Hub::psubscribe, "psubscribe"); }

/* PUNSUBSCRIBE [pattern [pattern ...]] */
void punsubscribe_command(Call& call) {
  unsubscribe_generic(call, &pubsub::Hub::punsubscribe, "punsubscribe", &pubsub::Hub::patterns_of);
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

/* PUBSUB NUMSUB [channel [channel ...]] */
void pubsub_numsub_command(Call& call) {
  // An array of channel, count pairs in both protocols, as Redis 7.0.
  call.reply.array((call.argv.size() - 2) * 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    call.reply.bulk(call.argv[i]);
    call.reply.integer(static_cast<int64_t>(hub(call).subscribers(call.argv[i])));
  }
}

/* PUBSUB NUMPAT */
void pubsub_numpat_command(Call& call) { call.reply.integer(static_cast<int64_t>(hub(call).pattern_count())); }

/* PUBSUB HELP */
void pubsub_help_command(Call& call) {
  // Redis 7.0's text without the SHARDCHANNELS and SHARDNUMSUB entries,
  // which lawnkv does not serve.
  reply_help(call, "PUBSUB",
             {
                 "CHANNELS [<pattern>]",
                 "    Return the currently active channels matching a <pattern> (default: '*').",
                 "NUMPAT",
                 "    Return number of subscriptions to patterns.",
                 "NUMSUB [<channel> ...]",
                 "    Return the number of subscribers for the specified channels, excluding",
                 "    pattern subscriptions(default: no channels).",
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
    {.name = "subscribe", .arity = -2, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of channels",
     .summary = "Listens for messages on channels",
     .handler = subscribe_command,
     .channel_args = kSubscribeChannels},
    {.name = "unsubscribe", .arity = -1, .flags = kPubsub | kNoscript | kLoading | kStale | kSubscribedContext,
     .acl = "@pubsub @slow",
     .group = "pubsub", .since = "2.0.0", .complexity = "O(N) where N is the number of channels",
     .summary = "Stops listening on channels",
     .handler = unsubscribe_command},
  });
}

}  // namespace lawnkv
