#include "store/dict.hpp"

#include <utility>

#include "core/byte_hash.hpp"
#include "core/bytes.hpp"

namespace lawnkv::store {

namespace {
constexpr size_t kMinBuckets = 4;
}  // namespace

Dict::Dict() : table_(kMinBuckets), seed_(std::random_device{}()) {}

Dict::~Dict() {
  clear([](Entry&) {});
}

Dict::Dict(Dict&& other) noexcept
    : table_(std::exchange(other.table_, Buckets(kMinBuckets))),
      next_(std::exchange(other.next_, Buckets())),
      rehash_at_(std::exchange(other.rehash_at_, 0)),
      size_(std::exchange(other.size_, 0)),
      seed_(other.seed_),
      longest_chain_(other.longest_chain_) {}

Dict& Dict::operator=(Dict&& other) noexcept {
  if (this != &other) {
    std::swap(table_, other.table_);
    std::swap(next_, other.next_);
    std::swap(rehash_at_, other.rehash_at_);
    std::swap(size_, other.size_);
    std::swap(seed_, other.seed_);
    std::swap(longest_chain_, other.longest_chain_);
  }
  return *this;
}

uint64_t Dict::hash_of(std::string_view key) const { return hash_bytes(key, seed_); }

const Dict::Link& Dict::bucket_of(uint64_t hash) const {
  const size_t i = hash & mask(table_);
  if (rehashing() && i < rehash_at_) return next_[hash & mask(next_)];
  return table_[i];
}

namespace {

// a == b, inline for keys of a few dozen bytes (core/bytes.hpp).
bool same_key(std::string_view a, std::string_view b) {
  return a.size() == b.size() && equal_bytes(a.data(), b.data(), a.size());
}

}  // namespace

Entry* Dict::find(std::string_view key) const {
  for (Entry* e = bucket_of(hash_of(key)); e; e = e->next_in_bucket)
    if (same_key(e->key(), key)) return e;
  return nullptr;
}

Dict::Link* Dict::link_to(std::string_view key) {
  Link* link = &bucket_of(hash_of(key));
  while (*link != nullptr && !same_key((*link)->key(), key)) link = &(*link)->next_in_bucket;
  return link;
}

void Dict::insert(EntryPtr owned) {
  rehash_step();
  Entry* e = owned.release();
  Link& head = bucket_of(hash_of(e->key()));
  e->next_in_bucket = head;
  head = e;
  ++size_;
  maybe_resize();
}

EntryPtr Dict::remove(std::string_view key) {
  rehash_step();
  Link* link = link_to(key);
  Entry* e = *link;
  if (e == nullptr) return nullptr;
  *link = e->next_in_bucket;
  e->next_in_bucket = nullptr;
  --size_;
  maybe_resize();
  return EntryPtr(e);
}

EntryPtr Dict::replace(Entry* old, EntryPtr fresh) {
  Link* link = link_to(old->key());
  Entry* e = fresh.release();
  e->next_in_bucket = old->next_in_bucket;
  *link = e;
  old->next_in_bucket = nullptr;
  return EntryPtr(old);
}

void Dict::maybe_resize() {
  if (rehashing()) return;  // one at a time; see the header
  const size_t n = table_.size();
  if (size_ > n) {
    resize(n * 2);
  } else if (n > kMinBuckets && size_ * 8 < n) {
    size_t want = kMinBuckets;
    while (want < size_ * 2) want *= 2;
    resize(want);
  }
}

void Dict::resize(size_t n) {
  next_ = Buckets(n);
  rehash_at_ = 0;
  rehash(kRehashBuckets);
}

void Dict::rehash(size_t chains) {
  const size_t m = mask(next_);
  size_t empty_visits = chains * 10;
  while (chains > 0 && rehash_at_ < table_.size()) {
    Link& old = table_[rehash_at_];
    if (old == nullptr) {
      ++rehash_at_;
      if (--empty_visits == 0) break;
      continue;
    }
    for (Entry* e = old; e;) {
      Entry* next = e->next_in_bucket;
      Link& slot = next_[hash_of(e->key()) & m];
      e->next_in_bucket = slot;
      slot = e;
      e = next;
    }
    old = nullptr;
    ++rehash_at_;
    --chains;
  }
  if (rehash_at_ == table_.size()) {
    table_ = std::move(next_);
    next_ = Buckets();
    rehash_at_ = 0;
  }
}

Entry* Dict::random(std::mt19937_64& rng) const {
  if (size_ == 0) return nullptr;
  // Buckets that may hold entries: table_'s from rehash_at_ on, then next_'s.
  const size_t in_table = table_.size() - rehash_at_;
  const size_t buckets = in_table + next_.size();
  for (;;) {
    const size_t r = rng() % buckets;
    Entry* head = r < in_table ? table_[rehash_at_ + r] : next_[r - in_table];
    if (!head) continue;
    size_t len = 0;
    for (Entry* e = head; e; e = e->next_in_bucket) ++len;
    if (len > longest_chain_) {
      longest_chain_ = len;
      continue;
    }
    size_t pick = rng() % longest_chain_;
    if (pick >= len) continue;
    Entry* e = head;
    while (pick--) e = e->next_in_bucket;
    return e;
  }
}

}  // namespace lawnkv::store
