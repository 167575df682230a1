#include "expiry/lawn_queue.hpp"

#include <cassert>

namespace lawnkv::expiry {

LawnQueue* LawnQueues::create(int64_t ttl) {
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = next_id_++;
    if (id / kChunk == chunks_.size()) chunks_.emplace_back(kChunk);
  }
  LawnQueue* q = at(id);
  q->proxy = Timer{};
  detail::make_empty_list(&q->list, detail::kWheelSlotCodes + id);
  q->ttl = ttl;
  q->idle_prev = kNoQueue;
  q->idle_next = kNoQueue;
  ++live_;
  return q;
}

void LawnQueues::destroy(LawnQueue* q) {
  assert(q->empty() && q->proxy.next == nullptr);
  q->ttl = 0;
  free_.push_back(q->id());
  --live_;
}

void LawnQueues::push_idle(LawnQueue* q) {
  const uint32_t id = q->id();
  q->idle_prev = idle_tail_;
  q->idle_next = kNoQueue;
  if (idle_tail_ != kNoQueue) {
    at(idle_tail_)->idle_next = id;
  } else {
    idle_head_ = id;
  }
  idle_tail_ = id;
  ++idle_;
}

void LawnQueues::remove_idle(LawnQueue* q) {
  if (q->idle_prev != kNoQueue) {
    at(q->idle_prev)->idle_next = q->idle_next;
  } else {
    idle_head_ = q->idle_next;
  }
  if (q->idle_next != kNoQueue) {
    at(q->idle_next)->idle_prev = q->idle_prev;
  } else {
    idle_tail_ = q->idle_prev;
  }
  q->idle_prev = kNoQueue;
  q->idle_next = kNoQueue;
  --idle_;
}

size_t LawnQueues::memory_bytes() const {
  return chunks_.size() * kChunk * sizeof(LawnQueue) +
         chunks_.capacity() * sizeof(chunks_[0]) + free_.capacity() * sizeof(uint32_t);
}

void LawnQueues::clear() {
  chunks_.clear();
  free_.clear();
  next_id_ = 0;
  idle_head_ = idle_tail_ = kNoQueue;
  live_ = idle_ = 0;
}

}  // namespace lawnkv::expiry
