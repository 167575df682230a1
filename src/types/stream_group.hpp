#pragma once
// A stream's IDs and its consumer groups: what a group has delivered (its
// last-delivered ID and logical read counter), and the entries it delivered
// and that were not acknowledged yet, its pending entries list (PEL), kept
// once for the group (ID -> delivery time, count, owner) and per consumer
// (the IDs it owns), both ordered by ID as Redis's radix trees are, so
// XPENDING and XAUTOCLAIM cost what they return, not what is pending.
//
// Knows nothing of commands (commands/streams_groups_family.cpp).

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace lawnkv::types {

// An entry's ID: milliseconds, then a sequence within the millisecond.
struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;
  auto operator<=>(const StreamId&) const = default;
  bool zero() const { return ms == 0 && seq == 0; }
  // The next (previous) ID; false at the last (first) one, unchanged.
  bool incr();
  bool decr();
  std::string str() const;  // "ms-seq"
  static constexpr StreamId max() { return {UINT64_MAX, UINT64_MAX}; }
};

struct StreamConsumer;

// A pending entry: when it was last delivered, how often, to whom.
struct StreamNack {
  int64_t delivery_time = 0;  // unix ms
  uint64_t delivery_count = 0;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;  // unix ms of its last read or claim
  std::set<StreamId> pel;
};

// A group's logical read counter is unknown.
inline constexpr int64_t kEntriesReadUnknown = -1;

struct StreamGroup {
  StreamId last_id;
  int64_t entries_read = kEntriesReadUnknown;
  std::map<StreamId, StreamNack> pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  StreamConsumer* consumer(std::string_view name) const;
  // The consumer named so, created (seen now) when absent; *created says.
  StreamConsumer* consumer_or_create(std::string_view name, int64_t now_ms, bool* created);
  // Deletes a consumer and its pending entries: how many it had, -1 if none.
  int64_t delete_consumer(std::string_view name);

  // Records a delivery of id to c at now_ms: a new pending entry with count
  // 1, or, when id was pending already, handed to c with count 1 (as
  // XREADGROUP does).
  void deliver(StreamId id, StreamConsumer* c, int64_t now_ms);
  // Hands a pending entry to c (XCLAIM): owner changed, the caller sets time
  // and count. The entry is created when absent.
  StreamNack& claim(StreamId id, StreamConsumer* c);
  // XACK of one ID: true if it was pending.
  bool ack(StreamId id);
};

}  // namespace lawnkv::types
