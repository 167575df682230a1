#include "dehydrator/id_table.hpp"

#include <utility>

namespace lawnkv::dehydrator {

namespace {
constexpr size_t kMinBuckets = 4;
}

IdTable::IdTable() : table_(kMinBuckets) {}

void IdTable::reset() {
  table_ = Buckets(kMinBuckets);
  next_ = Buckets();
  rehash_at_ = 0;
  size_ = 0;
}

IdTable::Link& IdTable::bucket_of(uint32_t hash) {
  const size_t i = hash & mask(table_);
  if (rehashing() && i < rehash_at_) return next_[hash & mask(next_)];
  return table_[i];
}

Element* IdTable::find(std::string_view id) const {
  const uint32_t hash = hash_id(id);
  for (Element* e = bucket_of(hash); e; e = e->next_in_bucket)
    if (e->hash == hash && e->id() == id) return e;
  return nullptr;
}

IdTable::Link& IdTable::link_to(Element* e) {
  Link* link = &bucket_of(e->hash);
  while (*link != e) link = &(*link)->next_in_bucket;
  return *link;
}

void IdTable::insert(Element* e) {
  rehash_step();
  push_front(bucket_of(e->hash), e);
  ++size_;
  maybe_resize();
}

void IdTable::remove(Element* e) {
  rehash_step();
  link_to(e) = e->next_in_bucket;
  e->next_in_bucket = nullptr;
  --size_;
  maybe_resize();
}

void IdTable::replace(Element* old, Element* fresh) {
  Link& link = link_to(old);
  fresh->next_in_bucket = old->next_in_bucket;
  link = fresh;
  old->next_in_bucket = nullptr;
}

void IdTable::maybe_resize() {
  if (size_ == 0 && (rehashing() || table_.size() > kMinBuckets)) return reset();
  if (rehashing()) return;  // one at a time, as store::Dict
  const size_t n = table_.size();
  size_t want = n;
  if (size_ > n) {
    want = n * 2;
  } else if (n > kMinBuckets && size_ * 8 < n) {
    want = kMinBuckets;
    while (want < size_ * 2) want *= 2;
  }
  if (want == n) return;
  next_ = Buckets(want);
  rehash_at_ = 0;
  rehash(kRehashBuckets);
}

void IdTable::rehash(size_t chains) {
  for (size_t empty_visits = chains * 10; chains > 0 && rehash_at_ < table_.size();) {
    Element* e = std::exchange(table_[rehash_at_++], nullptr);
    if (e) --chains;
    else if (--empty_visits == 0) break;
    // The cached hashes place the chain's elements without reading an id.
    while (e) {
      Element* next = e->next_in_bucket;
      push_front(next_[e->hash & mask(next_)], e);
      e = next;
    }
  }
  if (rehash_at_ == table_.size()) {
    table_ = std::move(next_);
    next_ = Buckets();
    rehash_at_ = 0;
  }
}

}  // namespace lawnkv::dehydrator
