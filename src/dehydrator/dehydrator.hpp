#pragma once
// A dehydrator: the value type behind the REDE.* commands (compatible with
// the ReDe module). Elements go in with an id and a TTL and become due once
// their TTL has fully passed (now > push time + ttl, never earlier); due
// elements come back out in expiry order (same TTL: push order).
//
// Each dehydrator keeps its own expiry::Index (the same Lawn on a wheel as the
// keyspace), rather than sharing the keyspace's: POLL and TTN on one key then
// look at that key's elements only, so they cost O(elements returned) whatever
// other keys and TTLs exist, and DEL/RENAME/MOVE of the key carry its elements
// along untouched. The cost is the index's fixed part (47 KB of wheel
// sentinels plus the TTL sketch once used) per dehydrator key: right for
// pipelines with a few large queues, wrong for millions of tiny ones.
//
// An element leaves the index when it is found due and waits, in due order,
// on the due list until it is polled, acknowledged (XACK) or pulled; XPOLL
// lists that waiting line without removing anything (at-least-once consumers).
//
// Due order is deadline order, and push order among equal deadlines. The
// index yields deadline order but leaves ties within a millisecond in any
// order (its cascades trade that for cache behaviour), so each element
// carries its push sequence number, and a batch found due is put in order
// by sorting each run of equal deadlines: O(k) for k due elements when
// deadlines differ, O(r log r) for a run of r pushed in the same ms.
//
// Memory per element: one arena block holding its links, id and value
// (element.hpp: 64 bytes for a 10-byte id and an 11-byte value), plus 4 to 8
// bytes of id-table buckets (id_table.hpp); memory_bytes() counts all.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "dehydrator/element.hpp"
#include "dehydrator/id_table.hpp"
#include "expiry/index.hpp"
#include "store/entry.hpp"

namespace lawnkv::dehydrator {

class Dehydrator final : public store::Object {
 public:
  Dehydrator() = default;
  ~Dehydrator() override;
  Dehydrator(const Dehydrator&) = delete;
  Dehydrator& operator=(const Dehydrator&) = delete;

  store::Type type() const override { return store::Type::kDehydrator; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  // A module type's value: Redis reports "raw".
  std::string_view encoding() const override { return "raw"; }

  // The latest deadline an element can have. kNever stands for "nothing
  // pending" (earliest_, next_due_bound), and TTN adds 1 to a deadline.
  static constexpr int64_t kMaxDeadline = expiry::kNever - 1;

  // The deadline of an element pushed at now_ms with ttl_ms: now_ms + ttl_ms,
  // or nullopt when that falls outside [0, kMaxDeadline] (overflow, a TTL
  // past the year 292,000,000, or a negative one). REDE.PUSH refuses those.
  static std::optional<int64_t> deadline_for(int64_t ttl_ms, int64_t now_ms);

  // Adds element under id, due once now > now_ms + ttl_ms. False (nothing
  // changes) if id is already dehydrating here. A TTL that deadline_for
  // refuses is clamped into [0, kMaxDeadline]: no input breaks the index.
  bool push(std::string_view id, std::string_view element, int64_t ttl_ms, int64_t now_ms);
  bool contains(std::string_view id) const { return by_id_.find(id) != nullptr; }

  // Removes id whatever its state; its element, or nullopt if absent.
  std::optional<std::string> pull(std::string_view id);
  // The element of id without removing it, or nullopt.
  std::optional<std::string_view> look(std::string_view id) const;
  // Replaces id's element, keeping its expiry; the old one, or nullopt.
  std::optional<std::string> update(std::string_view id, std::string_view element);

  // Calls fn(std::string_view element), or fn(element, id), for up to max
  // due elements in expiry order, removing each after (POLL). Returns how many.
  template <class F>
  size_t poll(int64_t now_ms, size_t max, F&& fn);
  // The ids of every due element, in expiry order, not removed (XPOLL).
  std::vector<std::string_view> due_ids(int64_t now_ms);
  // id's element if it is due (then removed), else nullopt (XACK).
  std::optional<std::string> ack(std::string_view id, int64_t now_ms);

  // Milliseconds until the next element is due: 0 if one is due, -1 if empty.
  // Exact; the earliest deadline is cached between changes that could move it.
  int64_t ttn(int64_t now_ms);
  // How many elements are due at now_ms. Cheap: for the loop's every turn.
  size_t due_count(int64_t now_ms);
  bool has_due(int64_t now_ms) { return due_count(now_ms) != 0; }
  // A time no later than the earliest pending deadline (due once now > it),
  // expiry::kNever when nothing is pending; 0 when one is already due. The
  // index's O(levels) bound, for arming wake-ups, not for TTN.
  int64_t next_due_bound(int64_t now_ms);

  size_t size() const { return by_id_.size(); }

  // Saving and loading (persistence/dehydrator_codec.cpp).
  // One element as saved: due says it waits on the due list.
  struct Saved {
    std::string_view id;
    std::string_view value;
    int64_t deadline;
    bool due;
  };
  // Every element in the order it would come out: the due list in order,
  // then the pending ones by deadline (push order among equal deadlines).
  // Views are valid until the dehydrator changes.
  std::vector<Saved> saved_order() const;
  // Adds an element as saved_order listed it (call in that order): a due
  // one joins the due list's tail, a pending one is scheduled at deadline
  // (one that passed meanwhile is due at the next look, never dropped).
  // False if id is already here.
  bool restore(std::string_view id, std::string_view value, int64_t deadline, bool due);

 private:
  // Moves every element found due at now_ms from the index to the due list,
  // in due order.
  void collect_due(int64_t now_ms);
  void append_due(Element* e);
  void unlink_due(Element* e);
  // Starts loading what polling the elements after e will touch: the one
  // after next on the due list, and the next one's id-table bucket. The
  // next element itself was asked for on the previous call, so a POLL of
  // many waits for about one cache miss per element instead of three.
  void prefetch_after(const Element* e) const {
    const Element* next = e->due_next;
    if (!next) return;
    __builtin_prefetch(next->due_next.get());
    by_id_.prefetch(next->hash);
  }
  // Takes e out of wherever it is and frees it.
  void remove(Element* e);
  // remove(e), handing back its value.
  std::string take(Element* e);

  expiry::Index index_;
  // The earliest deadline in the index, valid unless earliest_stale_: an
  // exact answer costs a walk of one wheel slot, so TTN keeps it.
  int64_t earliest_ = expiry::kNever;
  bool earliest_stale_ = false;
  uint64_t next_seq_ = 0;
  std::vector<Element*> batch_;  // collect_due's scratch, kept for its capacity
  Element* due_head_ = nullptr;
  Element* due_tail_ = nullptr;
  size_t due_count_ = 0;
  IdTable by_id_;  // every element; the dehydrator owns them
};

template <class F>
size_t Dehydrator::poll(int64_t now_ms, size_t max, F&& fn) {
  collect_due(now_ms);
  size_t n = 0;
  while (due_head_ && n < max) {
    Element* e = due_head_;
    prefetch_after(e);
    if constexpr (std::is_invocable_v<F, std::string_view, std::string_view>) {
      fn(e->value(), e->id());
    } else {
      fn(e->value());
    }
    remove(e);
    ++n;
  }
  return n;
}

}  // namespace lawnkv::dehydrator
