#pragma once
// An unbounded single-producer, single-consumer queue without locks: the
// link between the main thread and one I/O thread in each direction
// (io_threads.hpp). Items live in blocks of kBlock; the producer publishes
// each item with a release store of its block's count, the consumer reads
// it with an acquire load, so whatever the producer wrote before push() is
// visible to the consumer after pop(). A full block links a new one, so
// push never waits: neither thread can block the other. The consumer hands
// the block it emptied back through a one-block spare slot, and the
// producer takes its next block from there when it can: at a steady rate
// the two pass the same blocks round instead of allocating one (zeroed)
// every kBlock items and freeing it on the other thread.

#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>

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
    delete spare_.load(std::memory_order_relaxed);
  }
  SpscQueue(const SpscQueue&) = delete;
  SpscQueue& operator=(const SpscQueue&) = delete;

  // Producer only.
  void push(const T& item) {
    if (tail_pos_ == kBlock) {
      // A spare block was emptied before the consumer gave it back
      // (acquire: its reads are done); the link's release publishes the
      // reset to the consumer.
      Block* b = spare_.exchange(nullptr, std::memory_order_acquire);
      if (b != nullptr) {
        b->count.store(0, std::memory_order_relaxed);
        b->next.store(nullptr, std::memory_order_relaxed);
      } else {
        b = new Block;
      }
      tail_->next.store(b, std::memory_order_release);
      tail_ = b;
      tail_pos_ = 0;
    }
    std::construct_at(&tail_->items[tail_pos_++], item);
    tail_->count.store(tail_pos_, std::memory_order_release);
  }

  // Consumer only: the oldest item, false when there is none.
  bool pop(T* out) {
    if (head_pos_ == kBlock) {
      Block* next = head_->next.load(std::memory_order_acquire);
      if (next == nullptr) return false;
      Block* none = nullptr;
      if (!spare_.compare_exchange_strong(none, head_, std::memory_order_release, std::memory_order_relaxed))
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
  // Items are copied in and out as bytes, and a block's items are left
  // unset until pushed.
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  struct Block {
    Block() {}
    union {
      T items[kBlock];
    };
    alignas(64) std::atomic<size_t> count{0};
    std::atomic<Block*> next{nullptr};
  };
  // Each side's fields on a cache line of their own.
  alignas(64) Block* head_;  // the consumer's
  size_t head_pos_ = 0;
  alignas(64) Block* tail_;  // the producer's
  size_t tail_pos_ = 0;
  // An emptied block the consumer gave back, for the producer's next.
  alignas(64) std::atomic<Block*> spare_{nullptr};
};

}  // namespace lawnkv::server
