#pragma once
// An unbounded single-producer, single-consumer queue without locks: the
// link between the main thread and one I/O thread in each direction
// (io_threads.hpp). Items live in blocks of kBlock; the producer publishes
// each item with a release store of its block's count, the consumer reads
// it with an acquire load, so whatever the producer wrote before push() is
// visible to the consumer after pop(). A full block links a new one (the
// producer allocates, the consumer frees), so push never waits: neither
// thread can block the other.

#include <atomic>
#include <cstddef>

namespace lawnkv::server {

template <typename T>
class SpscQueue {
 public:
  SpscQueue() : head_(new Block), tail_(head_) {}
  ~SpscQueue() {
    while (head_ != nullptr) {
      Block* next = head_->next.load(std::memory_order_relaxed);
      delete head_;
      head_ = next;
    }
  }
  SpscQueue(const SpscQueue&) = delete;
  SpscQueue& operator=(const SpscQueue&) = delete;

  // Producer only.
  void push(const T& item) {
    if (tail_pos_ == kBlock) {
      auto* b = new Block;
      tail_->next.store(b, std::memory_order_release);
      tail_ = b;
      tail_pos_ = 0;
    }
    tail_->items[tail_pos_++] = item;
    tail_->count.store(tail_pos_, std::memory_order_release);
  }

  // Consumer only: the oldest item, false when there is none.
  bool pop(T* out) {
    if (head_pos_ == kBlock) {
      Block* next = head_->next.load(std::memory_order_acquire);
      if (next == nullptr) return false;
      delete head_;
      head_ = next;
      head_pos_ = 0;
    }
    if (head_pos_ == head_->count.load(std::memory_order_acquire)) return false;
    *out = head_->items[head_pos_++];
    return true;
  }

  // Consumer only: whether pop() would find nothing now.
  bool empty() const {
    if (head_pos_ == kBlock) return head_->next.load(std::memory_order_acquire) == nullptr;
    return head_pos_ == head_->count.load(std::memory_order_acquire);
  }

 private:
  static constexpr size_t kBlock = 1024;
  struct Block {
    T items[kBlock];
    alignas(64) std::atomic<size_t> count{0};
    std::atomic<Block*> next{nullptr};
  };
  // Each side's fields on a cache line of their own.
  alignas(64) Block* head_;  // the consumer's
  size_t head_pos_ = 0;
  alignas(64) Block* tail_;  // the producer's
  size_t tail_pos_ = 0;
};

}  // namespace lawnkv::server
