#include "expiry/index.hpp"

#include <algorithm>

namespace lawnkv::expiry {

LawnQueue* Index::make_hot(int64_t ttl) {
  LawnQueue* q = queues_.create(ttl);
  ttls_.make_hot(ttl, q);
  queues_.push_idle(q);  // empty <=> idle; the caller's add takes it off
  return q;
}

void Index::add_ttl_slow(Timer* t, LawnQueue* q, int64_t ttl) {
  if (q == nullptr && ttls_.arrival(ttl)) q = make_hot(ttl);
  if (q != nullptr && q->empty()) {
    start_queue(q, t);
    return;
  }
  wheel_.insert(t);
}

void Index::head_removed(Timer* s) {
  const int64_t code = detail::sentinel_code(s->deadline);
  if (code < detail::kWheelSlotCodes) {
    if (s->next == s) wheel_.list_emptied(code);
    return;
  }
  LawnQueue* q = queues_.from_sentinel_code(code);
  wheel_.remove(&q->proxy);
  if (q->empty()) {
    queue_emptied(q);
  } else {
    arm_proxy(q, q->head()->deadline);
  }
}

void Index::queue_emptied(LawnQueue* q) {
  queues_.push_idle(q);
  // Keep idle queues at most max(kMinIdleQueues, busy queues): the TTLs that
  // went quiet longest lose their queue (and must arrive 4 times again).
  while (queues_.idle() > std::max(kMinIdleQueues, queues_.live() - queues_.idle())) {
    LawnQueue* old = queues_.oldest_idle();
    queues_.remove_idle(old);
    ttls_.make_cold(old->ttl);
    queues_.destroy(old);
  }
}

size_t Index::memory_bytes() const {
  return wheel_.memory_bytes() + queues_.memory_bytes() + ttls_.memory_bytes();
}

void Index::clear() {
  wheel_.clear();
  queues_.clear();
  ttls_.clear();
  size_ = 0;
}

}  // namespace lawnkv::expiry
