#include "store/dict.hpp"

#include <utility>

namespace lawnkv::store {

namespace {
constexpr size_t kMinBuckets = 4;

// 64-bit mix of the bytes (FNV-1a over 8-byte words, then a finaliser): fast
// on short keys, and the per-table random seed keeps chains from being forced.
uint64_t hash_bytes(std::string_view s, uint64_t seed) {
  uint64_t h = seed ^ (s.size() * 0x9E3779B97F4A7C15ULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001B3ULL;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < s.size(); ++i, k += 8) tail |= uint64_t(uint8_t(s[i])) << k;
  h = (h ^ tail) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 32;
  return h;
}
}  // namespace

Dict::Dict() : buckets_(kMinBuckets), seed_(std::random_device{}()) {}

Dict::~Dict() {
  clear([](Entry&) {});
}

Dict::Dict(Dict&& other) noexcept
    : buckets_(std::exchange(other.buckets_, Buckets(kMinBuckets))),
      size_(std::exchange(other.size_, 0)),
      seed_(other.seed_) {}

Dict& Dict::operator=(Dict&& other) noexcept {
  if (this != &other) {
    std::swap(buckets_, other.buckets_);
    std::swap(size_, other.size_);
    std::swap(seed_, other.seed_);
  }
  return *this;
}

uint64_t Dict::hash_of(std::string_view key) const { return hash_bytes(key, seed_); }

Entry* Dict::find(std::string_view key) const {
  for (Entry* e = buckets_[hash_of(key) & mask()]; e; e = e->next_in_bucket)
    if (e->key() == key) return e;
  return nullptr;
}

Dict::Link* Dict::link_to(std::string_view key) {
  Link* link = &buckets_[hash_of(key) & mask()];
  while (*link != nullptr && (*link)->key() != key) link = &(*link)->next_in_bucket;
  return link;
}

void Dict::insert(EntryPtr owned) {
  Entry* e = owned.release();
  Link& head = buckets_[hash_of(e->key()) & mask()];
  e->next_in_bucket = head;
  head = e;
  if (++size_ > buckets_.size()) resize(buckets_.size() * 2);
}

EntryPtr Dict::remove(std::string_view key) {
  Link* link = link_to(key);
  Entry* e = *link;
  if (e == nullptr) return nullptr;
  *link = e->next_in_bucket;
  e->next_in_bucket = nullptr;
  --size_;
  if (buckets_.size() > kMinBuckets && size_ * 8 < buckets_.size()) resize(buckets_.size() / 2);
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

void Dict::resize(size_t n) {
  if (n < kMinBuckets) n = kMinBuckets;
  Buckets fresh(n);
  const size_t m = n - 1;
  for (Entry* head : buckets_) {
    while (head) {
      Entry* next = head->next_in_bucket;
      Link& slot = fresh[hash_of(head->key()) & m];
      head->next_in_bucket = slot;
      slot = head;
      head = next;
    }
  }
  buckets_.swap(fresh);
}

Entry* Dict::random(std::mt19937_64& rng) const {
  if (size_ == 0) return nullptr;
  Entry* head;
  do {
    head = buckets_[rng() & mask()];
  } while (!head);
  size_t len = 0;
  for (Entry* e = head; e; e = e->next_in_bucket) ++len;
  size_t pick = rng() % len;
  Entry* e = head;
  while (pick--) e = e->next_in_bucket;
  return e;
}

}  // namespace lawnkv::store
