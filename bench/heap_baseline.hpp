#pragma once
// The baseline the expiry index is measured against: a binary min-heap of
// timers, the structure libuv keeps its timers in. Array-based with the heap
// position stored in the node, so cancel and reschedule are O(log n) without a
// search (libuv's heap-inl.h links nodes by pointers instead; the array form
// is the faster of the two, so this is the stronger baseline).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace lawnkv::bench {

struct HeapTimer {
  static constexpr uint32_t kNotInHeap = UINT32_MAX;
  int64_t deadline = 0;
  uint32_t index = kNotInHeap;  // position in the heap array
};

class MinHeap {
 public:
  void add(HeapTimer* t, int64_t deadline) {
    t->deadline = deadline;
    t->index = static_cast<uint32_t>(heap_.size());
    heap_.push_back(t);
    sift_up(t->index);
  }

  void cancel(HeapTimer* t) {
    if (t->index == HeapTimer::kNotInHeap) return;
    const uint32_t i = t->index;
    HeapTimer* last = heap_.back();
    heap_.pop_back();
    t->index = HeapTimer::kNotInHeap;
    if (last == t) return;
    heap_[i] = last;
    last->index = i;
    if (i > 0 && last->deadline < heap_[(i - 1) / 2]->deadline) {
      sift_up(i);
    } else {
      sift_down(i);
    }
  }

  // Changes the key in place and restores the heap.
  void reschedule(HeapTimer* t, int64_t deadline) {
    if (t->index == HeapTimer::kNotInHeap) {
      add(t, deadline);
      return;
    }
    const int64_t old = t->deadline;
    t->deadline = deadline;
    if (deadline < old) {
      sift_up(t->index);
    } else {
      sift_down(t->index);
    }
  }

  int64_t next_deadline() const { return heap_.empty() ? INT64_MAX : heap_[0]->deadline; }

  // Pops up to max timers with deadline < now, earliest first.
  template <class F>
  size_t drain(int64_t now, size_t max, F&& on_due) {
    size_t n = 0;
    while (n < max && !heap_.empty() && heap_[0]->deadline < now) {
      HeapTimer* t = heap_[0];
      cancel(t);
      ++n;
      on_due(t);
    }
    return n;
  }

  size_t size() const { return heap_.size(); }
  size_t memory_bytes() const { return heap_.capacity() * sizeof(HeapTimer*); }

 private:
  void sift_up(uint32_t i) {
    HeapTimer* t = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (heap_[parent]->deadline <= t->deadline) break;
      heap_[i] = heap_[parent];
      heap_[i]->index = i;
      i = parent;
    }
    heap_[i] = t;
    t->index = i;
  }

  void sift_down(uint32_t i) {
    HeapTimer* t = heap_[i];
    const size_t n = heap_.size();
    for (;;) {
      size_t child = 2 * static_cast<size_t>(i) + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1]->deadline < heap_[child]->deadline) ++child;
      if (heap_[child]->deadline >= t->deadline) break;
      heap_[i] = heap_[child];
      heap_[i]->index = i;
      i = static_cast<uint32_t>(child);
    }
    heap_[i] = t;
    t->index = i;
  }

  std::vector<HeapTimer*> heap_;
};

}  // namespace lawnkv::bench
