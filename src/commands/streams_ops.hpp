#pragma once
// What the stream command families share (streams_family.cpp: entries;
// streams_groups_family.cpp: consumer groups): creating a stream, the node
// limits from the configuration, stream IDs as Redis parses and writes
// them, and the reply of a list of entries.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "commands/streams_errors.hpp"
#include "engine/context.hpp"
#include "types/stream.hpp"

namespace lawnkv {

// The stream at key, created empty (with a `new` event, as Redis's dbAdd)
// when absent; nullptr after WRONGTYPE.
types::Stream* stream_or_create(Call& call, std::string_view key);

// A blocked XREAD or XREADGROUP run again because a key changed: Redis 7.0
// (serveClientsBlockedOnStreamKey) answers it from that key alone, the first
// of its STREAMS keys named so, with the entries after the ID it waited
// after (a group's last ID), while the stream's last ID is past it, and with
// COUNT or at most kBlockedReadDefaultCount entries. The index of that key
// among keys; keys.size() when the command is not such a retry.
size_t stream_ready_index(const Call& call, std::span<const std::string_view> keys);
inline constexpr long long kBlockedReadDefaultCount = 1000;  // Redis's XREAD_BLOCKED_DEFAULT_COUNT

// The time a stream command acts at (a consumer's seen time, XCLAIM's now):
// the command's time, or while a file loads (the AOF replay runs with its
// clock at 0, so that nothing expires) the server clock, as Redis reads
// mstime() there: after a restart from the AOF, the consumers that replayed
// records touched were seen at the load, as in Redis.
int64_t stream_command_now(const Call& call);

// stream-node-max-bytes and stream-node-max-entries.
types::StreamLimits stream_limits(const Call& call);

// Redis's streamGenericParseIDOrReply: "-", "+" (refused when strict),
// "<ms>", "<ms>-<seq>" (each as string2ull reads it), "<ms>-*" when
// seq_given is not null (*seq_given then false). A missing seq is
// missing_seq. False with kInvalidStreamId replied.
bool parse_stream_id(std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given, types::StreamId* out);
bool stream_id_or_reply(Call& call, std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given,
                        types::StreamId* out);

// "ms-seq" as a bulk string.
void reply_stream_id(resp::Writer& r, types::StreamId id);
// [id, [name, value, ...]] for each entry.
void reply_stream_entries(resp::Writer& r, const std::vector<types::StreamEntry>& entries);

// The entries with start <= id <= end (reverse: from end down), at most count
// (0: all).
std::vector<types::StreamEntry> stream_range(const types::Stream& s, types::StreamId start, types::StreamId end,
                                             bool reverse, size_t count);

// The consumer named so in g, created (with `xgroup-createconsumer`) when
// absent, else seen now; *created says which.
types::StreamConsumer* stream_consumer_or_create(Call& call, types::StreamGroup* g, std::string_view key,
                                                 std::string_view name, bool* created = nullptr);

// Redis's streamPropagateXCLAIM: the delivery or claim of id as a replayable
// "XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID LASTID
// <group's last ID>" record.
void record_stream_claim(Call& call, std::string_view key, std::string_view group, const types::StreamGroup& g,
                         types::StreamId id, const types::StreamNack& nack);
// Redis's streamPropagateGroupID: "XGROUP SETID key group <last ID>
// ENTRIESREAD <n>".
void record_stream_group_id(Call& call, std::string_view key, std::string_view group, const types::StreamGroup& g);

}  // namespace lawnkv
