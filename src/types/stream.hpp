#pragma once
// A stream: the value type behind XADD, XRANGE, XREADGROUP... ("stream" to
// TYPE). Entries are ordered by a 128-bit ID (ms-seq), each holding field
// and value pairs; consumer groups (stream_group.hpp) track what they read.
//
// The entries live in nodes kept in a std::map by their first ("master")
// ID, as Redis keeps listpacks in a radix tree. A node is one byte buffer
// holding a packed run of entries, each as
//
//   [flags][ms delta][seq][fields...]
//
//   flags      one byte: kDeleted (a tombstone left by XDEL or a trim inside
//              the node), kSameFields (the entry's field names are those of
//              the node's first entry, and only its values are stored)
//   ms delta   varint: ms - master.ms
//   seq        varint: seq - master.seq when the ms delta is 0, else seq
//   fields     kSameFields: the values alone, each [varint len][bytes];
//              otherwise [varint n] then n times [len][name][len][value]
//
// so an entry whose fields repeat the node's first entry's (the common
// case: producers send one shape) costs a flag byte, two ID bytes or so and
// its values with one length byte each. Nodes split exactly where Redis's
// do for stream-node-max-entries (entries counted with tombstones) and
// close to where they do for stream-node-max-bytes (our bytes count), so
// "~" trims remove the same whole nodes for streams of small entries. A
// node whose live entries all go is freed; tombstones stay until then.
//
// Worked example: 1,000,000 entries "f1 <8 bytes> f2 <8 bytes>" fill 10,000
// nodes of 100 entries; an entry takes 1 + 1 + 1 + 2 * 9 = 21 bytes in its
// node's buffer, plus a node's map slot and header spread over 100 entries.
//
// Costs: XADD appends to the last node (O(1) beside the map's O(log n)
// when a node opens); reaching an ID is O(log nodes) plus a scan of one node
// (at most stream-node-max-entries entries); a range of k entries costs
// that plus k; XREVRANGE decodes the offsets of the one node it starts in.
//
// Knows nothing of commands; commands/streams_family.cpp holds them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/entry.hpp"
#include "types/stream_group.hpp"

namespace lawnkv::types {

// How large a node may grow: stream-node-max-bytes (0 = no limit) and
// stream-node-max-entries (0 = no limit).
struct StreamLimits {
  size_t node_max_bytes = 4096;
  int64_t node_max_entries = 100;
};

// One entry as read: its ID and its fields, name then value, the views
// valid until the stream changes.
struct StreamEntry {
  StreamId id;
  std::vector<std::string_view> fields;  // name, value, name, value...
};

// How XADD and XTRIM cut the stream's head.
struct StreamTrim {
  enum class By : uint8_t { kNone, kMaxLen, kMinId };
  By by = By::kNone;
  bool approx = false;
  int64_t limit = 0;  // most entries removed; 0 = no limit
  uint64_t maxlen = 0;
  StreamId minid;
};

class Stream final : public store::Object {
 public:
  Stream();
  Stream(const Stream& other);
  Stream& operator=(const Stream&) = delete;
  ~Stream() override;

  store::Type type() const override { return store::Type::kStream; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  std::string_view encoding() const override { return "stream"; }

  uint64_t length() const { return length_; }
  StreamId last_id() const { return last_id_; }
  // The first live entry's ID as Redis records it (0-0 when empty).
  StreamId first_id() const { return first_id_; }
  StreamId max_deleted_id() const { return max_deleted_id_; }
  uint64_t entries_added() const { return entries_added_; }
  size_t node_count() const { return nodes_.size(); }
  // The nodes' master IDs, in order (XINFO STREAM's radix tree figures).
  std::vector<StreamId> node_ids() const;
  // Every node in order (its master ID, live and total entry counts), then
  // each of its entries, tombstones included (the RDB writer).
  void walk_nodes(const std::function<void(StreamId master, uint32_t live, uint32_t total)>& node,
                  const std::function<void(const StreamEntry& e, bool deleted)>& entry) const;

  // XSETID and the RDB loader set these as given.
  void set_last_id(StreamId id) { last_id_ = id; }
  void set_first_id(StreamId id) { first_id_ = id; }
  void set_max_deleted_id(StreamId id) { max_deleted_id_ = id; }
  void set_entries_added(uint64_t n) { entries_added_ = n; }

  // Appends an entry whose id is greater than last_id() (the caller checks);
  // fields holds name, value, name, value...
  void append(StreamId id, const std::vector<std::string_view>& fields, const StreamLimits& lim);
  // The RDB loader: appends an entry, a tombstone when deleted, opening a
  // node first when new_node, so a loaded stream keeps its nodes as saved.
  void load_entry(StreamId id, const std::vector<std::string_view>& fields, bool deleted, bool new_node);

  // Visits the live entries with start <= id <= end, in order (reverse:
  // from end down), until visit returns false.
  void range(StreamId start, StreamId end, bool reverse,
             const std::function<bool(const StreamEntry&)>& visit) const;
  // The live entry with this ID, if any (into *out when out is not null).
  bool find(StreamId id, StreamEntry* out) const;
  // The first (or last) entry, tombstones included when with_tombstones:
  // false when there is none.
  bool edge_id(bool first, bool with_tombstones, StreamId* id) const;

  // XDEL of one ID: true if a live entry was deleted. Keeps first_id and
  // max_deleted_id as Redis does.
  bool erase(StreamId id);
  // Removes entries from the head as Redis's streamTrim: whole nodes first;
  // an approximate trim stops at the first node it cannot drop whole.
  // Returns how many entries went.
  int64_t trim(const StreamTrim& how);

  // Logical read counter of id as Redis's
  // streamEstimateDistanceFromFirstEverEntry; -1 when not obtainable.
  int64_t estimate_distance(StreamId id) const;
  // Whether [start, end] (end absent: to the end) may hold a tombstone.
  bool range_has_tombstones(StreamId start, const StreamId* end) const;

  // Consumer groups in name order.
  std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>& groups() { return groups_; }
  const std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>& groups() const { return groups_; }
  StreamGroup* group(std::string_view name) const;
  // Creates a group; nullptr if one has that name.
  StreamGroup* create_group(std::string_view name, StreamId last_id, int64_t entries_read);
  bool destroy_group(std::string_view name);

  struct Node;  // stream.cpp

 private:
  std::map<StreamId, std::unique_ptr<Node>> nodes_;  // by master ID
  uint64_t length_ = 0;
  StreamId last_id_;
  StreamId first_id_;
  StreamId max_deleted_id_;
  uint64_t entries_added_ = 0;
  bool tail_closed_ = false;  // the next append opens a node (load_entry)
  std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>> groups_;
};

}  // namespace lawnkv::types
